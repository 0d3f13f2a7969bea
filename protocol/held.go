package protocol

// Held keeps, in arrival order, the messages that reach a member before
// the role that handles them exists — the role a phase (a linkage, a
// choice of bins) builds when it ends — and hands them over once it does.
type Held struct{ msgs []Envelope }

// Hold keeps e unless max messages are held already; it reports whether
// it did (the caller names what it is waiting for in its error).
func (h *Held) Hold(e Envelope, max int) bool {
	if len(h.msgs) >= max {
		return false
	}
	h.msgs = append(h.msgs, e)
	return true
}

// Start starts r and hands it the held messages in their order (Replay).
func (h *Held) Start(r Role) ([]Envelope, error) {
	out, err := r.Start()
	if err != nil {
		return nil, err
	}
	more, err := h.Replay(r)
	return append(out, more...), err
}

// StartAfter is Start after out: what a phase sends as it ends (a count,
// the agreed bins), then r's first messages and its answers to the held
// ones.
func (h *Held) StartAfter(out []Envelope, r Role) ([]Envelope, error) {
	first, err := h.Start(r)
	if err != nil {
		return nil, err
	}
	return append(out, first...), nil
}

// Replay hands r the held messages in their order and forgets them.
func (h *Held) Replay(r Role) ([]Envelope, error) {
	msgs := h.msgs
	h.msgs = nil
	return HandleEach(msgs, r.Handle)
}

// HandleEach hands the envelopes es in their order to handle (a role's
// Handle, or a wrapper of it) and gathers what it sends; at the first
// error it stops and returns nothing else.
func HandleEach(es []Envelope, handle func(Envelope) ([]Envelope, error)) ([]Envelope, error) {
	var out []Envelope
	for _, e := range es {
		more, err := handle(e)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}
