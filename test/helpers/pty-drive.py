# Runs a program on a new pseudo-terminal of a given size, as a person at a terminal would, and follows a script:
# wait for text, type bytes, resize the terminal, send this process's child a signal. Prints one JSON object: every
# byte the terminal showed, whether each wait was met, and the program's exit status.
# usage: pty-drive.py COLS ROWS STEPS_JSON PROGRAM [ARG...]
#   STEPS_JSON: [["wait", "text"], ["type", "bytes"], ["resize", cols, rows], ["signal", "SIGTERM"], ...]
import fcntl, json, os, pty, select, signal, struct, sys, termios, time

cols, rows, steps = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[4], sys.argv[4:])


def size(c, r):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', r, c, 0, 0))


size(cols, rows)
shown = b''


def read(until=None, seconds=60.0):
    """Reads what the terminal shows until `until` appears (or it closes, or `seconds` pass)."""
    global shown
    end = time.time() + seconds
    while time.time() < end and (until is None or until not in shown):
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            shown += chunk
    return until is not None and until in shown


met = []
for step in steps:
    if step[0] == 'wait':
        met.append(read(step[1].encode()))
    elif step[0] == 'type':
        os.write(fd, step[1].encode())
    elif step[0] == 'resize':
        size(step[1], step[2])  # the kernel tells the terminal's foreground group (SIGWINCH)
    elif step[0] == 'signal':
        os.kill(pid, getattr(signal, step[1]))
read(None, 30.0)
_, status = os.waitpid(pid, 0)
print(json.dumps({'shown': shown.decode('utf8', 'replace'), 'met': met, 'exit': os.waitstatus_to_exitcode(status)}))
