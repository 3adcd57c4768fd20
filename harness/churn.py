#!/usr/bin/env python3
"""churn.py TOP: guard the rule that a fix to code the series adds goes
into the patch that adds it.  For each patch of TOP/series, count the
lines it deletes from files an earlier patch of the series created.  Fail
when one patch deletes more than MAX_PER_PATCH such lines and its
changelog does not say why in a paragraph starting "Rework:", or when the
series as a whole deletes more than MAX_SERIES of the lines it adds.
"""
import os
import sys

MAX_PER_PATCH = 10
MAX_SERIES = 0.003


def sections(lines):
    """Yield (path, created, hunk lines) per file of a unified diff."""
    i = 0
    while i < len(lines):
        if (lines[i].startswith('--- ') and i + 1 < len(lines)
                and lines[i + 1].startswith('+++ ')):
            created = lines[i][4:].startswith('/dev/null')
            dst = lines[i + 1][4:].split('\t')[0]
            path = dst[2:] if dst.startswith('b/') else dst
            j = i + 2
            while j < len(lines) and not (
                    lines[j].startswith('--- ') and j + 1 < len(lines)
                    and lines[j + 1].startswith('+++ ')):
                j += 1
            yield path, created, lines[i + 2:j]
            i = j
        else:
            i += 1


def main(top):
    with open(os.path.join(top, 'series')) as f:
        names = [l.split()[0] for l in f if l.strip() and not l.startswith('#')]
    created, added, churn, bad = set(), 0, 0, 0
    for name in names:
        with open(os.path.join(top, 'patches', name)) as f:
            text = f.read()
        lines = text.split('\n')
        add = dele = 0
        new = []
        for path, is_new, hunk in sections(lines):
            add += sum(1 for l in hunk if l.startswith('+'))
            if path in created:
                dele += sum(1 for l in hunk if l.startswith('-'))
            if is_new:
                new.append(path)
        created.update(new)
        added += add
        churn += dele
        said = '\nRework:' in text.split('\n---\n')[0]
        verdict = ''
        if dele > MAX_PER_PATCH:
            verdict = ' (said why)' if said else ' FAIL: over %d without a "Rework:" paragraph' % MAX_PER_PATCH
            bad |= not said
        print('%-70s +%5d  churn %4d%s' % (name, add, dele, verdict))
    share = churn / max(added, 1)
    print('series: %d lines added, churn %d (%.2f %%, at most %.1f %%)'
          % (added, churn, 100 * share, 100 * MAX_SERIES))
    return 1 if bad or share > MAX_SERIES else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else '.'))
