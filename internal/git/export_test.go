package git

// Programs is the table of program settings, for the tests.
var Programs = programs
