// Package publish runs each method end to end in one process: encode the
// owners' tables with the public schema, give each owner an accountant,
// run the method's roles through the in-process runner, decode the output
// and build the privacy report. The CLI and the evaluation both call it.
package publish
