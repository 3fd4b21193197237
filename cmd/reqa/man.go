package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// manPage returns the reqa(1) manual page in roff, generated from app's
// command and flag definitions.
func manPage(app *cli.App) (string, error) {
	s, err := app.ToManWithSection(1)
	if err != nil {
		return "", fmt.Errorf("man: %w", err)
	}
	return s, nil
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:         "man",
		Usage:        "print the reqa(1) manual page (roff; reqa man | man -l -)",
		Flags:        []cli.Flag{jsonFlag(`print {"section", "roff"} as JSON`), quietFlag()},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("man: takes no arguments")
			}
			s, err := manPage(c.App)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(c.App.Writer, map[string]any{"section": 1, "roff": s})
			}
			_, err = fmt.Fprint(c.App.Writer, s)
			return err
		},
	}
}
