// Package randx is the single source of randomness in dppub.
//
// Every random draw that can touch private data (noise, latent codes,
// random splits, exponential-mechanism choices, masks) goes through a
// *Source. The default, NewSecure, reads the operating system's CSPRNG
// (crypto/rand). NewSeeded gives a deterministic ChaCha8 stream for tests
// and reproducible experiments only: its output is predictable, so a
// release made with it carries no privacy guarantee, and the privacy
// report says so.
package randx
