package event

// FromEnv reads the event that started the workflow, as the runner names it through getenv
// (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH); nil outside Actions. See Load for its errors.
func FromEnv(getenv func(string) string) (*Event, error) {
	path := getenv("GITHUB_EVENT_PATH")
	if getenv("GITHUB_ACTIONS") != "true" || path == "" {
		return nil, nil
	}
	return Load(getenv("GITHUB_EVENT_NAME"), path)
}
