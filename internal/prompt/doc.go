// Package prompt turns a prompt input into the text handed to the agent: inline prompts verbatim,
// prompt files through {{KEY}} substitution and !`command` expansion.
//
// A template is split into literal text and command blocks once, from the raw file, before any
// value is substituted. Values are then pasted into both kinds of segment, but only the blocks
// found in the raw file are ever run, so text that arrives through a prompt argument — an issue
// body, a comment — can never become a command, whatever backticks, braces or control
// characters it contains. A value substituted into a command block lands in shell text unquoted:
// the template author decides to trust it by writing it there.
//
// Expansion runs through an injected Runner, so the package is pure: no I/O, no environment.
package prompt
