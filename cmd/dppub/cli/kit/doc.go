// Package kit is what dppub's commands share, the hand-written method
// commands (method/<name>/cli) and the generic ones alike: the flag groups
// (the randomness, the outputs, the skipped columns, a method's settings
// bound as flags), the checks on inputs, the no-clobber publishing of
// outputs and their privacy report, the output modes (--quiet, --json,
// standard output) and usage errors. It knows no method.
package kit
