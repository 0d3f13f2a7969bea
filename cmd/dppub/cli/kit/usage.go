package kit

import "fmt"

// UsageError marks a mistake in the command line itself: the root ends its
// message with "(see --help)". It does not unwrap: what it marks is
// reported as its text, the way the command line got it wrong.
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }
