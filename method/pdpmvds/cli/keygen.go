package pdpmvdscli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/internal/fsutil"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type keygenFlags struct {
	parties      int
	bits         int
	insecureKeys bool
	force        bool
	out          string
	src          kit.SourceFlags
}

// register declares the command's flags into f.
func (f *keygenFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.parties, "parties", 0, "number of owners (required, at least 2)")
	fs.IntVar(&f.bits, "bits", pdpmvds.DefaultKeyBits, "modulus size in bits (2048 minimum; 3072 recommended beyond 2030)")
	fs.BoolVar(&f.insecureKeys, "insecure-test-keys", false, "INSECURE: allow --bits below 2048 (tests only)")
	fs.StringVar(&f.out, "out", "", "directory to write the key files to (created if absent; required)")
	fs.BoolVar(&f.force, "force", false, "replace key files that already exist in --out (the old keys are lost)")
	f.src.Register(fs)
}

// KeygenCommand is `dppub keygen`.
func KeygenCommand() *cobra.Command {
	return kit.NewCommand(&cobra.Command{
		Use:   "keygen",
		Short: "Key ceremony of the PDP-MVDS Paillier suite: one key-share file per owner",
		Long: `Generate the owners' shared Paillier key and split its decryption exponent
2-of-2 between every pair of owners (the paper's λ_{x,y}, λ_{y,x}). Writes
  DIR/party-k.key.json   owner k's shares (SECRET: give it to owner k only)
  DIR/public-key.json    the public key (for the third party S)

Run it at a DEALER that is neither the third party S (which handles every
ciphertext) nor one of the owners: the dealer sees the factorisation of the
modulus and could decrypt everything. Move each file to its owner over a
confidential channel, then erase DIR at the dealer. Any two owners together
can decrypt, so the protocol assumes no two owners collude.

Example:
  dppub keygen --parties 3 --bits 3072 --out keys/`,
		Args: cobra.NoArgs,
	}, (*keygenFlags).register, runKeygen)
}

func runKeygen(cmd *cobra.Command, f *keygenFlags, _ []string) error {
	switch {
	case f.parties < 2:
		return kit.Usagef("--parties must be at least 2, got %d", f.parties)
	case f.out == "":
		return kit.Usagef("--out DIR is required")
	case f.bits < paillier.MinBits && !f.insecureKeys:
		return kit.Usagef("--bits %d is below %d; add --insecure-test-keys for a test key", f.bits, paillier.MinBits)
	case f.bits < paillier.MinInsecureTestBits:
		return kit.Usagef("--bits must be at least %d, got %d", paillier.MinInsecureTestBits, f.bits)
	}
	outs := []string{filepath.Join(f.out, "public-key.json")}
	for k := range f.parties {
		outs = append(outs, filepath.Join(f.out, pdpmvds.KeyFileName(k)))
	}
	if err := checkOutDir("out", f.out, outs, nil, f.force); err != nil {
		return err // before the (slow) key generation: no key file is lost
	}
	src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
	deal := pdpmvds.DealKeys
	if f.bits < paillier.MinBits {
		deal = pdpmvds.DealInsecureTestKeys
	}
	pk, files, err := deal(paillier.NewReader(src), f.bits, f.parties)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.out, 0o700); err != nil {
		return err
	}
	for k, kf := range files {
		if err := writeJSON(filepath.Join(f.out, pdpmvds.KeyFileName(k)), 0o600, kf); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(f.out, "public-key.json"), 0o644, pk); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "Wrote a %d-bit shared Paillier key for %d owners to %s:\n", f.bits, f.parties, f.out)
	for k := range files {
		fmt.Fprintf(w, "  %s  SECRET: owner %d's shares with every other owner\n", pdpmvds.KeyFileName(k), k+1)
	}
	fmt.Fprintf(w, "  public-key.json  the public key, for the third party S\n")
	fmt.Fprintf(w, "Give each owner its own file over a confidential channel, then erase %s here: this dealer could decrypt everything.\n", f.out)
	if f.bits < paillier.MinBits {
		fmt.Fprintf(w, "WARNING: %d-bit keys are INSECURE (tests only).\n", f.bits)
	}
	return nil
}

func writeJSON(path string, perm os.FileMode, v any) error {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, perm, func(w io.Writer) error {
		_, err := w.Write(append(js, '\n'))
		return err
	})
}
