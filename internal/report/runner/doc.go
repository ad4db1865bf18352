// Package runner writes a run's report to the GitHub Actions runner: step outputs to
// GITHUB_OUTPUT, the job summary, masks, groups and annotations, through go-githubactions, of
// which it is the only importer. Outside Actions the same calls print plain text, so the CLI
// shows what CI would.
//
// What it writes is rendered by package report, which is pure; everything passes the
// Reporter's report.Redactor first, and agent output stays inside report.Console's
// ::stop-commands:: fences.
package runner
