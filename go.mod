module github.com/sandcastle-action/sandcastle

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/sethvargo/go-githubactions v1.4.0
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/sync v0.25.0
	golang.org/x/text v0.14.0
)
