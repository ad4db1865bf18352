// Package hostfs opens and makes what the host writes beneath a directory an agent can write
// in (the checkout, its git directory), one step at a time from a descriptor of that directory
// and never following a symbolic link: a directory the agent replaced with a link or a file is
// a *ReplacedError, and nothing is written where it leads.
package hostfs
