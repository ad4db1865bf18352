// Package git runs the git CLI for the rest of the program; it is the only package that execs git.
//
// Every command runs by argv (never through a shell) in a hermetic environment: variables that
// would point git at another repository (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, ...) are
// dropped, messages are in the C locale so they read the same everywhere, git never prompts,
// and extra configuration travels through GIT_CONFIG_COUNT so that nothing is written to any
// config file and secrets stay out of argv. When the context ends, git and every process it
// started are killed.
//
// Branch names from users are checked with gitref.Check before they reach a command line, so a
// name can never be read as an option.
package git
