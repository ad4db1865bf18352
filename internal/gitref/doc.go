// Package gitref holds git's names in plain Go: the rules of branch names, checked before any
// git command runs so that no name can ever be read as an option, and Commit, the one type a
// commit of the agent's has on its way from git to the outputs.
package gitref
