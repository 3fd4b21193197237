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
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("man: takes no arguments")
			}
			s, err := manPage(c.App)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, s)
			return err
		},
	}
}
