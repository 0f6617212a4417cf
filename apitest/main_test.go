package apitest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(RunWithTemplates(m)) }
