package stream

import (
	"bytes"
	"slices"
	"testing"
)

func TestLineWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		max    int
		want   []string
	}{
		{name: "one_line_per_write", writes: []string{"a\n", "b\n"}, max: 10, want: []string{"a", "b"}},
		{name: "lines_split_across_writes", writes: []string{"ab", "c\nd", "e\n"}, max: 10, want: []string{"abc", "de"}},
		{name: "many_lines_in_one_write", writes: []string{"a\nb\nc\n"}, max: 10, want: []string{"a", "b", "c"}},
		{name: "empty_lines_kept", writes: []string{"\n\na\n"}, max: 10, want: []string{"", "", "a"}},
		{name: "partial_last_line_flushed", writes: []string{"a\nb"}, max: 10, want: []string{"a", "b"}},
		{name: "long_line_cut_and_rest_dropped", writes: []string{"abcdefgh\nz\n"}, max: 3, want: []string{"abc", "z"}},
		{name: "long_line_cut_across_writes", writes: []string{"ab", "cd", "ef\nz"}, max: 3, want: []string{"abc", "z"}},
		{name: "nothing_written", writes: nil, max: 3, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			w := NewLineWriter(tt.max, func(l []byte) { got = append(got, string(l)) })
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
				}
			}
			w.Flush()
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLineWriterHandsOverLines(t *testing.T) {
	var got [][]byte
	w := NewLineWriter(10, func(l []byte) { got = append(got, l) })
	buf := []byte("one\ntwo\n")
	w.Write(buf)
	copy(buf, "XXXXXXXX")
	if got, want := string(bytes.Join(got, []byte(","))), "one,two"; got != want {
		t.Errorf("kept lines = %q, want %q (lines must not alias the written buffer)", got, want)
	}
}

func TestHeadAndTail(t *testing.T) {
	tests := []struct {
		name     string
		writes   []string
		max      int
		wantHead string
		wantTail string
	}{
		{name: "under_max", writes: []string{"ab", "c"}, max: 5, wantHead: "abc", wantTail: "abc"},
		{name: "over_max_across_writes", writes: []string{"abc", "def", "gh"}, max: 5, wantHead: "abcde", wantTail: "defgh"},
		{name: "one_write_over_max", writes: []string{"abcdefgh"}, max: 3, wantHead: "abc", wantTail: "fgh"},
		{name: "exactly_max", writes: []string{"abc"}, max: 3, wantHead: "abc", wantTail: "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, tail := NewHead(tt.max), NewTail(tt.max)
			for _, s := range tt.writes {
				if n, err := head.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Head.Write(%q) = %d, %v", s, n, err)
				}
				if n, err := tail.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Tail.Write(%q) = %d, %v", s, n, err)
				}
			}
			if got := head.String(); got != tt.wantHead {
				t.Errorf("head = %q, want %q", got, tt.wantHead)
			}
			if got := tail.String(); got != tt.wantTail {
				t.Errorf("tail = %q, want %q", got, tt.wantTail)
			}
		})
	}
}
