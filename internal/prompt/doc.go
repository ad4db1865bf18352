// Package prompt turns a prompt input into the text handed to the agent: inline prompts verbatim,
// prompt files through {{KEY}} substitution and !`command` expansion.
//
// A prompt file is parsed once (Parse) into literal text and command blocks, before any value is
// known, and rendered once the values are (Render). Only the blocks found in the raw file are ever
// run, so text that arrives through a value (an issue body, a comment) can never become a
// command, whatever backticks, braces or control characters it contains. A command block closes
// on the line it opens on; one that does not is an error, not a command running into the prose.
//
// Nor does a value substituted into a command block become shell text: the placeholder turns
// into a reference to an environment variable of that one command, quoted for where it stands
// (bare, in '...', in "..."), so the shell expands it into exactly the value and never parses
// it. That is only true where nothing reads the value again, so a command block that uses a
// placeholder must keep to a plain subset of the shell, stated positively (see shell.go):
// simple commands joined by |, &&, || and ;, a value only ever an argument, no program or
// construct that runs or evaluates what it is given, and no word that names such a program,
// which a program that runs its arguments (setarch, ssh-agent, ...) would run. Anything else is
// refused by Parse.
//
// Expansion runs through an injected Runner, so the package is pure: no I/O, no environment.
package prompt
