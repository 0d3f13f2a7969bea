package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/transport/gen/transportv1"
	"github.com/dppub/dppub/transport/gen/transportv1/transportv1connect"
	"google.golang.org/protobuf/proto"
)

// NodeOptions configure a Node.
type NodeOptions struct {
	Consortium *consortium.File
	// Member is the name of the member this node serves.
	Member string
	// Credentials default to the member's files from consortium init.
	Credentials *consortium.Credentials
	// Listen is the address to listen on (default: the member's address).
	// Port 0 lets the kernel choose; Addr reports the result.
	Listen string
	// Advertise is the address a coordinator announces to participants
	// (default: the member's address, or the bound address when Listen is
	// given).
	Advertise string
	// Ledger is the member's budget ledger; required when the member holds
	// a dataset. The node defines the dataset's lifetime budget in it.
	Ledger *budgetstore.Store
	// AcceptSeed lets a coordinator seed this member's randomness: INSECURE,
	// for tests and reproducible experiments only.
	AcceptSeed bool
	// HandleDelay delays every message a role handles (fault injection for
	// tests of slow members).
	HandleDelay time.Duration
	// Latency holds every message from another member until Latency after
	// it arrived (fault injection for benchmarks: a one-way network
	// latency at this member; messages that arrive together wait once,
	// unlike HandleDelay, which delays each in turn).
	Latency time.Duration
	// ProtocolVersion overrides the transport version this node speaks
	// (default ProtocolVersion): fault injection for tests of members
	// running different dppub releases.
	ProtocolVersion int
	// Logger receives the node's log (default: discarded).
	Logger *slog.Logger
}

// Node serves one member: it hosts the member's role in each session it
// takes part in, receives envelopes over mutual TLS, hands them to the
// role and delivers the role's replies to their recipients.
type Node struct {
	file      *consortium.File
	self      consortium.Member
	creds     *consortium.Credentials
	limits    consortium.Limits
	ledger    *budgetstore.Store
	opts      NodeOptions
	log       *slog.Logger
	ln        net.Listener
	srv       *http.Server
	advertise string
	version   string
	served    chan error
	closeOnce sync.Once
	closeErr  error

	mu       sync.Mutex
	sessions map[string]*session // open and running
	opening  map[string]bool
	closed   map[string]*closedSession
	order    []string // closed session IDs, oldest first
	clients  map[string]transportv1connect.TransportServiceClient
	httpc    []*http.Client
}

// maxClosed is how many finished sessions a node remembers, to
// acknowledge late retries and to answer the coordinator's polls.
const maxClosed = 4096

// NewNode validates o and loads the member's credentials.
func NewNode(o NodeOptions) (*Node, error) {
	if o.Consortium == nil {
		return nil, fmt.Errorf("transport: no consortium file")
	}
	self, err := o.Consortium.Member(o.Member)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	if o.HandleDelay < 0 || o.Latency < 0 {
		return nil, fmt.Errorf("transport: handle delay %v or latency %v is negative", o.HandleDelay, o.Latency)
	}
	version := o.ProtocolVersion
	if version == 0 {
		version = ProtocolVersion
	}
	if version < 0 {
		return nil, fmt.Errorf("transport: protocol version %d is negative", version)
	}
	creds := o.Credentials
	if creds == nil {
		if creds, err = consortium.LoadCredentials(o.Consortium, o.Member); err != nil {
			return nil, fmt.Errorf("transport: %w", err)
		}
	}
	if creds.Identity != o.Consortium.Identity(self) {
		return nil, fmt.Errorf("transport: credentials of %v used for %v", creds.Identity, o.Consortium.Identity(self))
	}
	if self.Dataset != nil {
		if o.Ledger == nil {
			return nil, fmt.Errorf("transport: member %q holds dataset %q but no budget ledger was given", self.Name, self.DatasetName())
		}
		g, err := self.Budget.Guarantee()
		if err != nil {
			return nil, fmt.Errorf("transport: %w", err)
		}
		if err := o.Ledger.Define(self.DatasetName(), g); err != nil {
			return nil, fmt.Errorf("transport: %w", err)
		}
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if self.Dataset != nil {
		// Only one process holds the ledger: reservations still open were
		// left by sessions that ended with the previous process.
		rs, err := o.Ledger.ReleaseOpen(self.DatasetName(), "the member stopped while the session ran")
		if err != nil {
			return nil, fmt.Errorf("transport: %w", err)
		}
		for _, r := range rs {
			logger.Warn("released a budget reservation left by a session that ended with the member's previous process", "member", self.Name,
				"session", r.Session, "budget", r.Budget.String(), "charged", r.Charged.String(), "released", r.Released.String())
		}
	}
	return &Node{
		file: o.Consortium, self: self, creds: creds, limits: o.Consortium.Limits, ledger: o.Ledger, opts: o,
		version: strconv.Itoa(version), log: logger.With("member", self.Name),
		sessions: map[string]*session{}, opening: map[string]bool{}, closed: map[string]*closedSession{},
		clients: map[string]transportv1connect.TransportServiceClient{},
	}, nil
}

// Name is the member's name.
func (n *Node) Name() string { return n.self.Name }

// Start listens and serves in the background until Close.
func (n *Node) Start() error {
	addr := n.opts.Listen
	if addr == "" {
		addr = n.self.Address
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("transport: %s: listen: %w", n.self.Name, err)
	}
	n.ln = ln
	n.advertise = n.opts.Advertise
	if n.advertise == "" {
		n.advertise = n.self.Address
		if n.opts.Listen != "" {
			n.advertise = ln.Addr().String()
		}
	}
	mux := http.NewServeMux()
	mux.Handle(transportv1connect.NewTransportServiceHandler(n,
		connect.WithReadMaxBytes(int(n.limits.MaxMessageBytes)),
		connect.WithSendMaxBytes(1<<20)))
	protocols := new(http.Protocols)
	protocols.SetHTTP2(true)
	n.srv = &http.Server{
		Handler:           n.withVersion(withPeer(mux)),
		TLSConfig:         serverTLS(n.creds),
		Protocols:         protocols,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       5 * time.Minute,
		ErrorLog:          log.New(slogWriter{n.log}, "", 0),
	}
	n.served = make(chan error, 1)
	go func() { n.served <- n.srv.ServeTLS(ln, "", "") }()
	n.log.Info("listening", "address", ln.Addr().String(), "identity", n.creds.Identity.String())
	return nil
}

// Addr is the bound address (after Start).
func (n *Node) Addr() string {
	if n.ln == nil {
		return ""
	}
	return n.ln.Addr().String()
}

// Close fails every open session, stops serving and waits for the server.
func (n *Node) Close() error {
	n.closeOnce.Do(func() { n.closeErr = n.close() })
	return n.closeErr
}

func (n *Node) close() error {
	n.mu.Lock()
	active := make([]*session, 0, len(n.sessions))
	for _, s := range n.sessions {
		active = append(active, s)
	}
	n.mu.Unlock()
	for _, s := range active {
		s.fail(fmt.Errorf("shutting down"), true)
	}
	if n.srv == nil {
		return nil
	}
	n.mu.Lock()
	for _, c := range n.httpc {
		c.CloseIdleConnections()
	}
	n.mu.Unlock()
	// The sessions are over; a short grace lets in-flight deliveries finish
	// (their senders retry or give up anyway), then idle HTTP/2 connections
	// are cut rather than waiting for peers to hang up.
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	err := n.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = n.srv.Close()
	}
	if serr := <-n.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// slogWriter routes the HTTP server's own messages (e.g. refused TLS
// handshakes) to the node's log.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn(string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

// authenticate returns the caller's identity, refusing callers outside
// this consortium or whose role differs from the consortium file's.
func (n *Node) authenticate(ctx context.Context) (consortium.Identity, error) {
	p := peerFrom(ctx)
	if p.err != nil {
		return p.id, connect.NewError(connect.CodeUnauthenticated, p.err)
	}
	if p.id.Consortium != n.file.Name {
		return p.id, connect.NewError(connect.CodePermissionDenied,
			fmt.Errorf("%v belongs to consortium %q, not %q", p.id, p.id.Consortium, n.file.Name))
	}
	m, err := n.file.Member(p.id.Name)
	if err != nil {
		return p.id, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("%v is not a member in %s's consortium file", p.id, n.self.Name))
	}
	if m.Role != p.id.Role {
		return p.id, connect.NewError(connect.CodePermissionDenied,
			fmt.Errorf("%v: the consortium file gives %s the role %q", p.id, m.Name, m.Role))
	}
	return p.id, nil
}

// Deliver receives one envelope.
func (n *Node) Deliver(ctx context.Context, req *connect.Request[transportv1.Envelope]) (*connect.Response[transportv1.DeliverResponse], error) {
	peer, err := n.authenticate(ctx)
	if err == nil {
		err = n.checkVersion(req.Header())
	}
	if err != nil {
		n.log.Warn("refused a delivery", "peer", peer.String(), "error", err)
		return nil, err
	}
	env, err := fromProto(req.Msg)
	if err != nil {
		n.log.Warn("refused a malformed envelope", "peer", peer.Name, "error", err)
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	if env.From != peer.Name {
		err := fmt.Errorf("envelope claims to come from %q but the caller's certificate is %v", env.From, peer)
		n.log.Warn("refused a delivery", "error", err)
		return nil, connect.NewError(connect.CodePermissionDenied, err)
	}
	if env.To != n.self.Name {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("envelope for %q delivered to %q", env.To, n.self.Name))
	}
	dup, err := n.route(ctx, peer, env)
	if err != nil {
		n.log.Warn("refused a delivery", "session", env.Session, "from", env.From, "type", env.Type, "seq", env.Seq, "error", err)
		return nil, err
	}
	if dup {
		n.log.Info("ignored a duplicate", "session", env.Session, "from", env.From, "type", env.Type, "seq", env.Seq)
	}
	return connect.NewResponse(&transportv1.DeliverResponse{Duplicate: dup}), nil
}

func (n *Node) route(ctx context.Context, peer consortium.Identity, env envelope) (bool, error) {
	if env.Type == TypeOpen {
		return n.handleOpen(peer, env)
	}
	n.mu.Lock()
	s := n.sessions[env.Session]
	c := n.closed[env.Session]
	n.mu.Unlock()
	switch {
	case s != nil:
		return s.accept(ctx, peer, env)
	case c != nil:
		return c.accept(env)
	case env.Seq == 0 && (env.Type == TypeEnd || env.Type == TypeAbort):
		return false, nil // ending a session this member never joined: nothing to do
	}
	return false, connect.NewError(connect.CodeNotFound, fmt.Errorf("no session %q at %s", env.Session, n.self.Name))
}

// Status answers the coordinator's poll.
func (n *Node) Status(ctx context.Context, req *connect.Request[transportv1.StatusRequest]) (*connect.Response[transportv1.StatusResponse], error) {
	peer, err := n.authenticate(ctx)
	if err == nil {
		err = n.checkVersion(req.Header())
	}
	if err != nil {
		return nil, err
	}
	id := req.Msg.GetSession()
	n.mu.Lock()
	s, c := n.sessions[id], n.closed[id]
	n.mu.Unlock()
	var st *transportv1.StatusResponse
	switch {
	case s != nil && s.coordinatorName == peer.Name:
		st = s.status()
	case c != nil && c.coordinator == peer.Name:
		st = &transportv1.StatusResponse{State: c.state, Error: c.err}
	case s != nil || c != nil:
		return nil, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("%s does not coordinate session %q", peer.Name, id))
	default:
		st = &transportv1.StatusResponse{State: stateUnknown}
	}
	return connect.NewResponse(st), nil
}

// client returns a cached client for member name at addr.
func (n *Node) client(name, addr string) (transportv1connect.TransportServiceClient, error) {
	key := name + "@" + addr
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.clients[key]; ok {
		return c, nil
	}
	m, err := n.file.Member(name)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP2(true)
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     clientTLS(n.creds, n.file.Identity(m)),
		Protocols:           protocols,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     5 * time.Minute,
	}}
	c := transportv1connect.NewTransportServiceClient(hc, "https://"+addr,
		connect.WithGRPC(),
		connect.WithInterceptors(n.versionInterceptor()),
		connect.WithSendMaxBytes(int(n.limits.MaxMessageBytes)),
		connect.WithReadMaxBytes(1<<20))
	n.clients[key] = c
	n.httpc = append(n.httpc, hc)
	return c, nil
}

// deliveryLimits bound one delivery's retries.
type deliveryLimits struct {
	// patience: transient failures are retried this long.
	patience time.Duration
	// silence, if positive: a member no attempt could connect to for this
	// long is unreachable, and the delivery fails then.
	silence time.Duration
	// note, if set, is told when the delivery starts to wait for the
	// member (its first failed attempt) and when the member is reached
	// after that.
	note func(string)
}

// deliver sends env to member to at addr, retrying transient failures
// (the receiver acknowledges a retried envelope it already has as a
// duplicate) within lim. A permanent failure (see permanent) returns at
// once, as one line naming the member and the reason.
func (n *Node) deliver(ctx context.Context, to, addr string, env envelope, lim deliveryLimits) error {
	c, err := n.client(to, addr)
	if err != nil {
		return err
	}
	msg := toProto(env)
	if size := proto.Size(msg); int64(size) > n.limits.MaxMessageBytes {
		return fmt.Errorf("%s to %s is %d bytes, over the consortium's max_message_bytes %d", env.Type, to, size, n.limits.MaxMessageBytes)
	}
	start, backoff := time.Now(), 50*time.Millisecond
	var unreached time.Time // since when no attempt could connect
	waiting := false        // lim.note was told
	for {
		actx, cancel := context.WithTimeout(ctx, n.limits.RPCTimeout.Duration)
		_, err := c.Deliver(actx, connect.NewRequest(msg))
		cancel()
		if err == nil {
			if waiting {
				lim.note(fmt.Sprintf("%s answered after %v", to, time.Since(start).Round(time.Millisecond)))
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if reason, refused, ok := n.permanent(err); ok {
			switch {
			case refused && env.Type == TypeOpen:
				return &failure{fmt.Sprintf("%s refused to join: %s", to, reason), err}
			case refused:
				return &failure{fmt.Sprintf("%s refused %s: %s", to, env.Type, reason), err}
			}
			return &failure{fmt.Sprintf("%s at %s: %s", to, addr, reason), err}
		}
		switch {
		case !notConnected(err):
			unreached = time.Time{}
		case unreached.IsZero():
			unreached = time.Now()
		}
		if lim.silence > 0 && !unreached.IsZero() && time.Since(unreached) >= lim.silence {
			return &unreachableError{member: to, addr: addr, silent: time.Since(unreached), err: err}
		}
		if time.Since(start) >= lim.patience {
			return &failure{fmt.Sprintf("could not deliver %s to %s at %s for %v: %s", env.Type, to, addr, lim.patience.Round(time.Millisecond), describe(err)), err}
		}
		if lim.note != nil && !waiting {
			waiting = true
			bound := lim.patience
			if lim.silence > 0 && !unreached.IsZero() {
				bound = lim.silence
			}
			lim.note(fmt.Sprintf("waiting for %s at %s (%s); retrying for up to %v", to, addr, describe(err), bound.Round(time.Millisecond)))
		}
		n.log.Debug("retrying a delivery", "to", to, "type", env.Type, "error", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// retire moves a finished session to the closed table.
func (n *Node) retire(s *session, c *closedSession) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.sessions[s.id] != s {
		return
	}
	delete(n.sessions, s.id)
	n.closed[s.id] = c
	n.order = append(n.order, s.id)
	for len(n.order) > maxClosed {
		delete(n.closed, n.order[0])
		n.order = n.order[1:]
	}
}
