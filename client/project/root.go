package project

// RootDir returns the directory a session's project tools work in: the
// first MCP root that is an existing local directory, else the git top
// level above cwd, else cwd itself — absolute, with symlinks resolved.
// It returns "" when neither roots nor cwd name a directory.
func RootDir(roots []string, cwd string) (string, error) {
	dir := firstRootDir(roots)
	if dir == "" {
		dir = cwd
	}
	if dir == "" {
		return "", nil
	}
	start, err := realPath(dir)
	if err != nil {
		return "", err
	}
	r, err := findRepo(start)
	if err != nil {
		return "", err
	}
	if r == nil || firstRootDir(roots) != "" {
		// A root the client names is the project, even inside a larger
		// repository.
		return start, nil
	}
	return r.top, nil
}
