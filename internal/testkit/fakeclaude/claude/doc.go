// Command claude stands in for Claude Code's CLI (claude --print --output-format
// stream-json) in tests that reach a whole run without npm: it speaks claude's stream-json and
// does what a script tells it, the steps the model stand-ins of package models answer with too
// (a shell tool call, text that ends the turn, an API error, a hang, text and then a hang).
//
// Tests build it with package fakeclaude's New, which puts it on PATH as claude with its script
// beside it: NAME.script is the JSON script, NAME.next the index of the next step (the script
// goes on across invocations, as a conversation with the model stand-ins does) and NAME.calls
// one JSON line per invocation: its arguments, prompt, directory and environment. Sessions are
// kept under $HOME/.claude/projects as claude keeps them, so --resume and --fork-session work
// and a session can be carried out of a sandbox.
package main
