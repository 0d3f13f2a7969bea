// Package fsutil holds small file-system helpers shared by dppub's
// packages: atomic file replacement (so that a crash or a failing writer
// never leaves a half-written release, key or ledger on disk) and the
// search for a file in a directory or one of its parents.
package fsutil
