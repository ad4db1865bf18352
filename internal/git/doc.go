// Package git runs the git CLI for the rest of the program; it is the only package that execs git.
//
// Every command runs by argv (never through a shell) in a hermetic environment: variables that
// would point git at another repository (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, ...) are
// dropped, messages are in the C locale so they read the same everywhere, git never prompts,
// and extra configuration travels through GIT_CONFIG_COUNT so that nothing is written to any
// config file and secrets stay out of argv. When the context ends, git and every process it
// started are killed.
//
// Every command is also hardened against the repository it runs in, whose config, hooks and
// attributes an agent may have written: hooks and fsmonitor are off, submodules are left alone
// (status and diff get --ignore-submodules=dirty on the command line, which a .gitmodules of the
// working tree cannot override, so no git starts in a submodule), and before a command that
// could run a program, the config it would read is listed (reading runs nothing) so that every
// program the repository's own config names (filter, diff and merge drivers, textconv, external
// diff, credential helper, ssh command, askpass, pager, editor, gpg program, remote helper,
// alternate-refs command, and every other setting git documents as a program) is replaced by
// the user's own setting or by one that runs nothing.
// What cannot be replaced from the command line (an include, a remote's upload-pack or
// receive-pack) refuses the command with an *UnsafeConfigError. The settings travel through
// GIT_CONFIG_COUNT after the caller's, so no caller can forget or undo them, and they reach the
// git processes a command starts in submodules.
//
// Branch names from users are checked with gitref.Check before they reach a command line, so a
// name can never be read as an option.
package git
