package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// process is a server started by the benchmark.
type process struct {
	cmd *exec.Cmd
	url string
}

// startProcess starts a server and waits for the line that names its
// address (matched by listening on stdout or stderr).
func startProcess(listening *regexp.Regexp, name string, args ...string) (*process, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = cleanEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout // one stream to scan
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	ended := make(chan struct{}) // the process closed its output: it exited
	var log strings.Builder
	var logMu sync.Mutex
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			logMu.Lock()
			if log.Len() < 1<<16 {
				log.WriteString(sc.Text() + "\n")
			}
			logMu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case url := <-found:
		return &process{cmd: cmd, url: url}, nil
	case <-ended:
		select {
		case url := <-found: // it listened, then closed its output
			return &process{cmd: cmd, url: url}, nil
		default:
		}
		err := cmd.Wait()
		logMu.Lock()
		defer logMu.Unlock()
		return nil, fmt.Errorf("%s exited before it listened (%v):\n%s", name, err, log.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		logMu.Lock()
		defer logMu.Unlock()
		return nil, fmt.Errorf("%s did not listen within 60 s:\n%s", name, log.String())
	}
}

func (p *process) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// cleanEnv is the environment less FIELDAPI_* variables, which fieldapi
// would read as flags.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FIELDAPI_") {
			env = append(env, kv)
		}
	}
	return env
}

// rssOf reads a field of /proc/PID/status in bytes (VmRSS, VmHWM); 0 where
// /proc is not there.
func rssOf(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// rssWatch samples a process's resident memory every 50 ms and keeps the peak.
type rssWatch struct {
	mu   sync.Mutex
	peak int64
	done chan struct{}
}

func watchRSS(pid int) *rssWatch {
	w := &rssWatch{done: make(chan struct{})}
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			rss := rssOf(pid, "VmRSS")
			w.mu.Lock()
			w.peak = max(w.peak, rss)
			w.mu.Unlock()
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *rssWatch) reset() {
	w.mu.Lock()
	w.peak = 0
	w.mu.Unlock()
}

func (w *rssWatch) stop() int64 {
	close(w.done)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}
