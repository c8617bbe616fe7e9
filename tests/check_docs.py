#!/usr/bin/env python3
"""tests/check_docs.py [HEADER] - the header's documentation against its code.

Fails (exit 1, one line per problem) when:
  - an environment variable the code reads (EDGEPROBE__GETENV("X")) is not
    in section 1's list;
  - a configuration macro the code tests (#if/#ifdef/#ifndef/defined() of a
    public EDGEPROBE_X name) is not in section 1;
  - a public function or macro the top comment names (its cost table, quick
    start) is not declared in Part I;
  - a section tag listed in CONTENTS is missing from the file, or a section's
    tag is missing from CONTENTS;
  - the header cites an issue number or describes a particular machine, or a
    bench/RESULTS*.md heading does.
"""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
HEADER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'include', 'edgeprobe.h')
# Not configuration: the include guard, and hooks a freestanding build
# supplies are named in section 1 too, so only the guard is exempt.
NOT_CONFIG = {'EDGEPROBE_H'}
MACHINE = re.compile(r'\b(EPYC|Xeon|Sandy Bridge VM|\d+-core|this machine|our machine|our \S+ VM)\b', re.I)
ISSUE = re.compile(r'\bissues? \d+', re.I)
ISSUE_WRAPPED = re.compile(r'\bissues?[ \t]*\n[ \t]*\*[ \t]*\d+', re.I)


def section(text, start_tag, end_tag):
    """The text from the banner holding start_tag to the one holding end_tag."""
    a = text.index(start_tag)
    b = text.index(end_tag, a)
    return text[a:b]


def env_read(text):
    return set(re.findall(r'EDGEPROBE__GETENV\("([A-Z_]+)"\)', text))


def macros_tested(text):
    names = set()
    for line in text.splitlines():
        if re.match(r'\s*#\s*(if|ifdef|ifndef|elif)\b', line):
            line = re.sub(r'/\*.*?(\*/|$)', '', line)
            names |= set(re.findall(r'\b(EDGEPROBE_[A-Z][A-Z0-9_]*)\b', line))
    return names - NOT_CONFIG


def declared_in_part1(text):
    part1 = section(text, 'PART I. USING IT\n * ===', 'PART II. HOW IT IS BUILT\n * ===')
    return set(re.findall(r'\b(edgeprobe_[a-z0-9_]+)\s*\(', part1)) | \
        set(re.findall(r'#define (EDGEPROBE_[A-Z0-9_]+)', part1)) | \
        set(re.findall(r'\b(edgeprobe_[a-z0-9_]+)\b', part1))


def problems(text):
    out = []
    top = text[:text.index('*/')]
    body = text[len(top):]
    config = section(body, '>>config', '*/')  # the section's comment, not its code
    env_list = config[config.index('Environment'):]
    for name in sorted(env_read(text)):
        if not re.search(r'\b' + name + r'\b', env_list):
            out.append('environment variable %s is read but not listed in section 1' % name)
    for name in sorted(macros_tested(text)):
        if not re.search(r'\b' + name + r'\b', config):
            out.append('configuration macro %s is tested but not listed in section 1' % name)
    declared = declared_in_part1(text)
    for name in sorted(set(re.findall(r'\b(edgeprobe_[a-z0-9_]+)', top))):
        if name not in declared and not name.startswith('edgeprobe_define_'):
            out.append('the top comment names %s, which Part I does not declare' % name)
    contents = top[top.index('CONTENTS'):]
    listed = set(re.findall(r'>>([a-z0-9-]+)', contents))
    present = set(re.findall(r'>>([a-z0-9-]+)', body))
    for tag in sorted(listed - present):
        out.append('CONTENTS lists >>%s, which no section carries' % tag)
    for tag in sorted(present - listed):
        out.append('section tag >>%s is missing from CONTENTS' % tag)
    for n, line in enumerate(text.splitlines(), 1):
        for rx, what in ((ISSUE, 'an issue number'), (MACHINE, 'a particular machine')):
            m = rx.search(line)
            if m:
                out.append('header line %d cites %s: %r' % (n, what, m.group(0)))
    for m in ISSUE_WRAPPED.finditer(text):  # "issue" at a line's end, its number on the next
        out.append('header line %d cites an issue number across a line break' % (text.count('\n', 0, m.start()) + 1))
    for path in sorted(glob.glob(os.path.join(ROOT, 'bench', 'RESULTS*.md'))):
        for n, line in enumerate(open(path), 1):
            if not line.startswith('#'):
                continue
            for rx, what in ((ISSUE, 'an issue number'), (MACHINE, 'a particular machine')):
                m = rx.search(line)
                if m:
                    out.append('%s:%d: a heading cites %s: %r' % (os.path.basename(path), n, what, m.group(0)))
    return out


def main():
    text = open(HEADER).read()
    try:
        found = problems(text)
    except ValueError as e:  # a banner or list the checks rely on is gone
        found = ['the header lacks a part this check reads (%s)' % e]
    for p in found:
        print('check_docs: ' + p)
    print('check_docs: %d problems (%d environment variables, %d configuration macros checked)'
          % (len(found), len(env_read(text)), len(macros_tested(text))))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
