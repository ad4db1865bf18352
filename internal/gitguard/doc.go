// Package gitguard keeps the files of a repository's git directory that decide which programs
// git runs, so that an agent in a sandbox, which must be able to commit and so to write .git,
// cannot leave the host anything to run.
//
// Take records them: the config, config.worktree and commondir files, hooks/ and info/ with
// everything in them, objects/info/alternates, each worktree's commondir, gitdir and
// config.worktree and the .git file of its working tree, and the same for every submodule's git
// directory. Binds names what a Docker sandbox should mount read-only over the writable
// repository, worktrees/ and modules/ included (so that the agent can make no git directory of
// its own where the worktrees or the submodules keep theirs; each submodule's own is writable
// again), and the directories to mount on themselves so that they cannot be
// renamed away and replaced; a mount target that does not exist is made empty first and removed
// by Close. Check compares everything with the record and puts back what differs, never
// following a link the agent made, and says what it was; Close does the same a last time, once
// the sandbox is gone, and moves into the git directory's sandcastle-quarantine/ each repository
// the agent nested in a working tree (as a gitlink, or untracked where the next git add -A would
// make one), whose own config a plain git status would run, whatever was added to worktrees/
// that git would not take for a worktree, and whatever was added to modules/, which a later git
// submodule update --init would take up. The quarantine is reached through internal/hostfs,
// never through a link: a link or a file the agent put in its place is removed and said. A .git file naming a directory of
// worktrees/ is a worktree's, and stays, only when git lists that worktree and its commondir and
// gitdir name this repository and that file back. A nested repository that was there at Take is
// the user's: it stays, its config, hooks and info/ kept like a submodule's.
package gitguard
