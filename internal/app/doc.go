// Package app is the composition root: it reads the environment and the flags once, checks
// everything a run needs before anything is made (preflight, every problem at once), builds
// the real adapters, checks at compile time that each fits the interfaces the engine declares,
// runs the engine and maps its error to an exit code by the error's type. Nothing imports app.
package app
