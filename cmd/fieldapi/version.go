package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version serves "fieldapi version": the module version and the VCS
// revision the binary was built from, as the Go toolchain recorded them.
func (a *app) version(_ context.Context, args []string) error {
	fs := newFlagSet("version", "version", a.stderr)
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, versionLine(debug.ReadBuildInfo()))
	return nil
}

// versionLine describes a build: "fieldapi v1.2.0 revision 3f2a9c1 (2026-11-20T10:00:00Z) go1.25.1";
// a revision built from a tree with uncommitted changes is marked "+dirty".
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "fieldapi (no build information)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	line := "fieldapi " + info.Main.Version
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += "+dirty"
		}
		line += " revision " + rev
		if at := settings["vcs.time"]; at != "" {
			line += " (" + at + ")"
		}
	} else {
		line += " revision unknown"
	}
	return line + " " + info.GoVersion
}
