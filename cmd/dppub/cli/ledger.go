package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/ledger"
	"github.com/spf13/cobra"
)

func newLedgerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Inspect and audit a publishing ledger",
		Long: `A publishing ledger (the "blockchain" of LDA-DP / Mul-LDA-DP) is an
append-only log in a directory: every entry (budget spent, statistics
submitted, class means and directions computed, artifact published) is
signed by its sender with Ed25519, chained to the previous one by its hash,
and covered by a Merkle tree whose head the publisher signs as a checkpoint.
Flipping a byte, reordering or dropping an entry is detected. Over the
network, ` + "`dppub run METHOD --ledger DIR`" + ` (or a coordinator's publishing_ledger in
the consortium file) records every session there: session-published entries
with the SHA-256 of every file written and each owner's receipted spend,
session-aborted entries with the reason.

Files in DIR:
  entries.log   the entries (append-only, checksummed records)
  checkpoint    the last checkpoint the publisher signed
  keyring       the members' public keys, one per line
  operator      the publisher's public key (verifies checkpoints)
  keys/         the parties' SECRET signing keys: dppub plays every party
                in one process, so it keeps them here (mode 0600); in a real
                deployment each party keeps only its own

Examples:
  dppub publish mul-lda-dp --dataset nltcs --label money --epsilon 1 --delta 1e-3 --ledger ./ledger --out p.csv
  dppub ledger show ./ledger
  cp ./ledger/operator publisher.pub   # the publisher's key, kept apart from the ledger
  dppub ledger verify ./ledger --operator publisher.pub`,
	}
	cmd.AddCommand(newLedgerShowCmd(), newLedgerVerifyCmd())
	return cmd
}

func newLedgerShowCmd() *cobra.Command {
	var payloads bool
	cmd := &cobra.Command{
		Use:   "show DIR",
		Short: "List the entries of a ledger, one a line",
		Long: `List every entry: index, sequence number, time, sender, kind, session,
payload size and the first bytes of the payload's SHA-256; with --payload,
also each payload (JSON payloads indented: e.g. the session records of
` + "`dppub run --ledger`" + `, with every published file's SHA-256 and every
participant's charges). Nothing is verified (use verify) and nothing on
disk changes.`,
		Example: `  dppub ledger show ./ledger
  dppub ledger show ./ledger --payload`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := openLedgerReadOnly(args[0], ledger.Keyring{})
			if err != nil {
				return err
			}
			defer l.Close()
			if t := l.TornTail(); t != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %v (an interrupted write)\n", t)
			}
			if !payloads {
				return ledger.Show(cmd.OutOrStdout(), l)
			}
			return showPayloads(cmd.OutOrStdout(), l)
		},
	}
	cmd.Flags().BoolVar(&payloads, "payload", false, "print every entry's payload too")
	return cmd
}

// showPayloads lists the entries as ledger.Show does, each followed by its
// payload.
func showPayloads(w io.Writer, l ledger.Ledger) error {
	for i := range l.Len() {
		e, err := l.Entry(i)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%d seq=%d %s %s %s session=%s\n", i, e.Seq, e.Time.UTC().Format(time.RFC3339Nano), e.Sender, e.Kind, e.Session)
		var b bytes.Buffer
		if json.Indent(&b, e.Payload, "    ", "  ") == nil {
			fmt.Fprintf(w, "    %s\n", b.String())
		} else {
			fmt.Fprintf(w, "    (%d bytes, not JSON)\n", len(e.Payload))
		}
	}
	return nil
}

func newLedgerVerifyCmd() *cobra.Command {
	var keyringPath, operatorPath string
	cmd := &cobra.Command{
		Use:   "verify DIR",
		Short: "Audit a ledger: signatures, hash chain and Merkle root against the signed checkpoint",
		Long: `Check every entry's signature against the keyring, the sequence numbers and
the hash chain, recompute the Merkle tree and compare its root with the
checkpoint signed by the publisher. Exits non-zero if anything fails.

By default the keyring and the publisher's key are read from DIR, which
only proves the log is consistent with the keys stored beside it: whoever
can rewrite the log can rewrite those files too. For an independent audit,
pass the keys you obtained out of band with --operator and --keyring.

The operator key file is one line, the publisher's Ed25519 verifier key in
the signed-note format NAME+HASH+KEY (e.g. publisher+0436e326+AVhX…). The
publisher writes it to DIR/operator when it creates the ledger (dppub
publish mul-lda-dp --ledger DIR, or dppub run --ledger DIR at the
coordinating member, whose name is then NAME); copy that file when the
ledger is created, or get the line from the publisher over a channel you
trust, and keep it apart from DIR. A --keyring file has the same format,
one member's verifier key a line, as in DIR/keyring.`,
		Example: `  cp ./ledger/operator publisher.pub    # once, when the ledger is created; keep it elsewhere
  dppub ledger verify ./ledger --operator publisher.pub
  dppub ledger verify ./ledger --operator publisher.pub --keyring members.keys`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			rep, err := verifyLedgerDir(dir, keyringPath, operatorPath)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), rep.String())
			if keyringPath == "" && operatorPath == "" {
				fmt.Fprintln(cmd.OutOrStdout(), "trust: keys read from the ledger directory itself (pass --operator/--keyring for an independent audit)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&keyringPath, "keyring", "", "members' verifier keys, one a line (default DIR/keyring)")
	cmd.Flags().StringVar(&operatorPath, "operator", "", "file holding the publisher's verifier key, one line NAME+HASH+KEY: a copy of DIR/operator taken when the ledger was created, or obtained from the publisher (default DIR/operator)")
	return cmd
}

// readParsed reads the file at path, the ledger's what, and parses it.
func readParsed[T any](path, what string, parse func([]byte) (T, error)) (T, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	return parse(text)
}

func verifyLedgerDir(dir, keyringPath, operatorPath string) (*ledger.Report, error) {
	if err := isLedgerDir(dir); err != nil {
		return nil, err // before its keys: say what is wrong with DIR first
	}
	if keyringPath == "" {
		keyringPath = filepath.Join(dir, kit.LedgerKeyringFile)
	}
	if operatorPath == "" {
		operatorPath = filepath.Join(dir, kit.LedgerOperatorFile)
	}
	ring, err := readParsed(keyringPath, "ledger keyring", ledger.ParseKeyring)
	if err != nil {
		return nil, err
	}
	op, err := readParsed(operatorPath, "ledger operator key", ledger.ParseMember)
	if err != nil {
		return nil, err
	}
	verifier, err := op.NoteVerifier()
	if err != nil {
		return nil, err
	}
	cp, err := ledger.LatestCheckpoint(dir)
	if err != nil {
		return nil, err
	}
	l, err := openLedgerReadOnly(dir, ring)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return ledger.Verify(l, ring, cp, verifier)
}

// isLedgerDir checks that dir holds a ledger.
func isLedgerDir(dir string) error {
	_, err := os.Stat(filepath.Join(dir, ledger.DataFile))
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%q is not a ledger directory (no %s in it)", dir, ledger.DataFile)
	case err != nil:
		return fmt.Errorf("ledger %q: %w", dir, err)
	}
	return nil
}

func openLedgerReadOnly(dir string, ring ledger.Keyring) (*ledger.FileLedger, error) {
	if err := isLedgerDir(dir); err != nil {
		return nil, err
	}
	return ledger.Open(dir, ledger.Options{Keyring: ring, Origin: kit.LedgerOrigin, ReadOnly: true})
}
