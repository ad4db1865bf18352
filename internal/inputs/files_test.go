package inputs

import (
	"strings"
	"testing"
)

// TestLoad_textFiles: the files inputs name are regular UTF-8 text files of at most 1 MiB;
// anything else is a problem of that input naming the path and, for bad bytes, the offset.
func TestLoad_textFiles(t *testing.T) {
	schema := func(path string) Raw {
		return Raw{InputPrompt: "<r>", InputOutputTag: "r", InputOutputSchema: path}
	}
	tests := []struct {
		name  string
		raw   Raw
		files map[string]string
		input string
		want  string
	}{
		{"prompt_file_pipe", Raw{InputPromptFile: "p.md"}, map[string]string{"p.md|": ""}, InputPromptFile, "/repo/p.md is a named pipe, not a regular file"},
		{"prompt_file_directory", Raw{InputPromptFile: "dir"}, map[string]string{"dir/x": "x"}, InputPromptFile, "/repo/dir is a directory, not a regular file"},
		{"prompt_file_nul", Raw{InputPromptFile: "p.md"}, map[string]string{"p.md": "Fix\x00it"}, InputPromptFile, "/repo/p.md holds a NUL byte at offset 3"},
		{"prompt_file_not_utf8", Raw{InputPromptFile: "p.md"}, map[string]string{"p.md": "ok é \xff"}, InputPromptFile, "/repo/p.md is not UTF-8 text: byte 0xff at offset 6"},
		{"prompt_file_too_large", Raw{InputPromptFile: "p.md"}, map[string]string{"p.md": strings.Repeat("x", MaxFileSize+1)}, InputPromptFile, "/repo/p.md is larger than 1 MiB"},
		{"env_file_pipe", with(InputEnvFile, "env"), map[string]string{"env|": ""}, InputEnvFile, "/repo/env is a named pipe, not a regular file"},
		{"env_file_nul", with(InputEnvFile, "env"), map[string]string{"env": "A=1\nB=\x00"}, InputEnvFile, "/repo/env holds a NUL byte at offset 6"},
		{"schema_file_pipe", schema("s.json"), map[string]string{"s.json|": ""}, InputOutputSchema, "/repo/s.json is a named pipe, not a regular file"},
		{"dockerfile_pipe", Raw{InputPrompt: "p", InputDockerfile: "Dockerfile", InputBuildImage: "always"}, map[string]string{"Dockerfile|": ""}, InputDockerfile, "/repo/Dockerfile is not a regular file"},
		{"schema_file_not_utf8", schema("s.json"), map[string]string{"s.json": `{"a":"` + "\xc3" + `"}`}, InputOutputSchema, "is not UTF-8 text: byte 0xc3 at offset 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(tt.raw, testEnv(tt.files))
			checkOneProblem(t, err, tt.input, tt.want)
		})
	}
	// A file of exactly MaxFileSize bytes is fine.
	if _, err := load(Raw{InputPromptFile: "p.md"}, testEnv(map[string]string{"p.md": strings.Repeat("x", MaxFileSize)})); err != nil {
		t.Errorf("a prompt file of 1 MiB: %v", err)
	}
}
