// Package report writes what the GitHub Actions runtime and a person read: step outputs, the job
// summary, masks, groups and annotations, and the run log.
//
// It is the only importer of go-githubactions. Everything it writes passes a Redactor first.
// Agent output is untrusted: in Actions it is written between ::stop-commands:: fences so that
// workflow commands the agent prints stay inert, and the Reporter lifts the fence only around
// the commands it issues itself. Outside Actions the same calls print plain text, so the CLI
// shows what CI would.
package report
