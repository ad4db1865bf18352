// Package review turns a review agent's structured output (a summary, and comments on lines of
// the pull request, each with an optional suggestion) into one pull request review: the
// comments that fall on a line of the diff, as GitHub's patches of the changed files say, go on
// their lines; any other moves into the review's body, since GitHub refuses a review with a
// comment outside the diff. Each comment and the summary carry a hidden marker, so a re-run
// finds what it posted before and does not repeat it. It also holds the output's JSON Schema,
// the default output-schema of a review run. Pure: the host fetches the diff and posts the
// review.
package review
