#!/usr/bin/env python3
"""gitify.py [--check] PATCH...: put patches in the form git format-patch
writes, which is what maintainers apply with git am and what checkpatch
reads: a "diff --git a/P b/P" line before each file, and "new file mode
100644" (or "deleted file mode 100644") before a file the patch creates
(or removes), so that checkpatch sees new files and git am gives them a
mode.  quilt refresh writes plain unified diffs; make export runs this
after it.  Idempotent.  With --check, print the patches not in that form
and exit 1.  The series adds no executable file, hence mode 100644.
"""
import sys


def gitify(text):
    lines = text.split('\n')
    out = []
    for i, line in enumerate(lines):
        if (line.startswith('--- ') and i + 1 < len(lines)
                and lines[i + 1].startswith('+++ ')):
            src = line[4:].split('\t')[0]
            dst = lines[i + 1][4:].split('\t')[0]
            path = (src if dst == '/dev/null' else dst)[2:]
            mode = []
            if src == '/dev/null':
                mode = ['new file mode 100644']
            elif dst == '/dev/null':
                mode = ['deleted file mode 100644']
            k = len(out)
            while k > 0 and out[k - 1].startswith(('new file mode',
                                                   'deleted file mode',
                                                   'index ')):
                k -= 1
            if not (k > 0 and out[k - 1].startswith('diff --git ')):
                out += ['diff --git a/%s b/%s' % (path, path)] + mode
        out.append(line)
    return '\n'.join(out)


def main(argv):
    check = argv[:1] == ['--check']
    bad = 0
    for name in argv[1:] if check else argv:
        with open(name) as f:
            text = f.read()
        new = gitify(text)
        if new == text:
            continue
        if check:
            print('%s: not in git format-patch form (run make export)' % name)
            bad = 1
        else:
            with open(name, 'w') as f:
                f.write(new)
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
