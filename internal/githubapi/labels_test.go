package githubapi

import (
	"net/http"
	"slices"
	"testing"
)

func TestAddLabels(t *testing.T) {
	client, mux, rec := setup(t)
	mux.HandleFunc("/repos/o/r/issues/5/labels", func(w http.ResponseWriter, r *http.Request) {
		testMethod(t, r, "POST")
		var labels []string
		decodeBody(t, r, &labels)
		if want := []string{"agent:in-progress", "needs review"}; !slices.Equal(labels, want) {
			t.Errorf("labels = %q, want %q", labels, want)
		}
		writeJSON(t, w, http.StatusOK, []map[string]string{{"name": "agent:in-progress"}, {"name": "needs review"}})
	})
	if err := client.AddLabels(t.Context(), "o", "r", 5, "agent:in-progress", "needs review"); err != nil {
		t.Fatalf("AddLabels: %v", err)
	}
	if err := client.AddLabels(t.Context(), "o", "r", 5); err != nil {
		t.Fatalf("AddLabels with none: %v", err)
	}
	if got, want := rec.total(), 1; got != want {
		t.Errorf("requests = %d, want %d (none for an empty list)", got, want)
	}
}

func TestRemoveLabel(t *testing.T) {
	tests := []struct {
		name       string
		label      string
		status     int
		wantStatus int // of the returned *Error; 0 for no error
	}{
		{"removed", "agent:implement", http.StatusOK, 0},
		{"absent_is_not_an_error", "agent:in-progress", http.StatusNotFound, 0},
		{"escaped_space_and_slash", "needs review/now", http.StatusOK, 0},
		{"forbidden", "agent:blocked", http.StatusForbidden, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux, rec := setup(t)
			mux.HandleFunc("/repos/o/r/issues/5/labels/{label}", func(w http.ResponseWriter, r *http.Request) {
				testMethod(t, r, "DELETE")
				if got := r.PathValue("label"); got != tt.label {
					t.Errorf("label = %q, want %q", got, tt.label)
				}
				if tt.status == http.StatusOK {
					writeJSON(t, w, tt.status, []any{})
					return
				}
				writeJSON(t, w, tt.status, map[string]string{"message": http.StatusText(tt.status)})
			})
			err := client.RemoveLabel(t.Context(), "o", "r", 5, tt.label)
			switch {
			case tt.wantStatus == 0 && err != nil:
				t.Errorf("RemoveLabel: %v", err)
			case tt.wantStatus != 0:
				if got := asError(t, err).Status; got != tt.wantStatus {
					t.Errorf("Status = %d, want %d", got, tt.wantStatus)
				}
			}
			if got, want := rec.total(), 1; got != want {
				t.Errorf("requests = %d, want %d", got, want)
			}
		})
	}
}
