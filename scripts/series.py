#!/usr/bin/env python3
"""series.py - commit the project as a patch series on a pristine 6.12 repo.

Called by scripts/make-patches.sh, which keeps the pristine repository:

  series.py --git-dir build/pristine --base BASE --root PROJECT --conf
            patches/series.conf --branch ksym-series [--rev REV]

Reads patches/series.conf (its format is described at its top), takes the
project's overlay files (kernel/ include/ Documentation/ selftests/) and the
upstream-file patches of patches/series, from the working tree or, with
--rev, from that commit of the project, and commits one patch per stanza on
top of BASE without any checkout (a temporary index, hash-object, write-tree,
commit-tree). Prints the commit of the tip; the branch points to it.
"""
import argparse
import fnmatch
import os
import re
import signal
import subprocess
import sys
import tempfile

OVERLAY = {"kernel": "kernel", "include": "include",
           "Documentation": "Documentation",
           "selftests": "tools/testing/selftests"}


def die(msg):
    sys.stderr.write("make-patches: ERROR: %s\n" % msg)
    sys.exit(1)


def note(msg):
    sys.stderr.write("make-patches: %s\n" % msg)


def run(args, data=None, env=None, text=False):
    r = subprocess.run(args, input=data, stdout=subprocess.PIPE, env=env)
    if r.returncode != 0:
        die("%s failed (exit %d)" % (" ".join(args), r.returncode))
    return r.stdout.decode() if text else r.stdout


# --- series.conf ------------------------------------------------------------
class Stanza:
    def __init__(self, name):
        self.name = name
        self.subject = None
        self.globs = []
        self.upstream = []      # (file, compiled regex)
        self.patchfiles = []    # names in patches/: this stanza's changes, whole
        self.body = []
        self.files = []         # (kernel path, mode, content)


def parse_conf(path):
    cover, stanzas, cur = None, [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            where = "%s:%d" % (os.path.basename(path), n)
            if line.startswith("|"):
                if cur is None:
                    die("%s: body line outside a stanza" % where)
                cur.body.append(line[2:] if line.startswith("| ") else line[1:])
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, _, val = line.partition(":")
            val = val.strip()
            if key == "cover":
                cur = cover = Stanza("cover")
                cover.subject = val
            elif key == "patch":
                cur = Stanza(val)
                stanzas.append(cur)
            elif cur is None or cur is cover:
                die("%s: '%s' before the first 'patch:'" % (where, key))
            elif key == "subject":
                cur.subject = val
            elif key == "files":
                cur.globs += val.split()
            elif key == "patchfile":
                cur.patchfiles += val.split()
            elif key == "upstream":
                fname, _, ere = val.partition(" ")
                if not ere.strip():
                    die("%s: upstream: FILE ERE" % where)
                try:
                    cur.upstream.append((fname, re.compile(ere.strip())))
                except re.error as e:
                    die("%s: bad ERE: %s" % (where, e))
            else:
                die("%s: unknown key '%s'" % (where, key))
    for s in stanzas:
        if not s.subject:
            die("series.conf: patch %s has no subject" % s.name)
    return cover, stanzas


def glob_match(path, pat):
    # fnmatch's * crosses '/', so make '*' stop at '/' and '**' span it.
    rx = ""
    i = 0
    while i < len(pat):
        if pat.startswith("**", i):
            rx += ".*"
            i += 2
        elif pat[i] == "*":
            rx += "[^/]*"
            i += 1
        else:
            rx += fnmatch.translate(pat[i])[4:-3] if pat[i] in "?[" else re.escape(pat[i])
            i += 1
    return re.fullmatch(rx, path) is not None


# --- project files, from the working tree or a commit -------------------------
class Project:
    def __init__(self, root, rev):
        self.root, self.rev = root, rev

    def list(self, top):
        if self.rev:
            out = run(["git", "-C", self.root, "ls-tree", "-r", "-z", self.rev, "--", top])
            res = []
            for ent in out.split(b"\0"):
                if not ent:
                    continue
                meta, path = ent.split(b"\t", 1)
                mode = meta.split()[0].decode()
                res.append((path.decode(), "100755" if mode == "100755" else "100644"))
            return res
        res = []
        base = os.path.join(self.root, top)
        for d, dirs, files in os.walk(base):
            dirs.sort()
            for fn in sorted(files):
                p = os.path.join(d, fn)
                mode = "100755" if os.access(p, os.X_OK) else "100644"
                res.append((os.path.relpath(p, self.root), mode))
        return res

    def read(self, path):
        if self.rev:
            return run(["git", "-C", self.root, "show", "%s:%s" % (self.rev, path)])
        with open(os.path.join(self.root, path), "rb") as f:
            return f.read()

    def exists(self, path):
        if self.rev:
            r = subprocess.run(["git", "-C", self.root, "cat-file", "-e",
                                "%s:%s" % (self.rev, path)], stderr=subprocess.DEVNULL)
            return r.returncode == 0
        return os.path.exists(os.path.join(self.root, path))


# --- the patches of patches/series ---------------------------------------------
PATCH = ["patch", "-p1", "-f", "--fuzz=0", "--no-backup-if-mismatch", "-r", "/dev/null"]


def patch_files(name, text):
    """{file: "add" | "del" | "mod"} of a patch's ---/+++ header pairs."""
    res = {}
    lines = text.decode(errors="replace").splitlines()
    for i, line in enumerate(lines[:-1]):
        if not (line.startswith("--- ") and lines[i + 1].startswith("+++ ")):
            continue
        old = line[4:].split("\t")[0].strip()
        new = lines[i + 1][4:].split("\t")[0].strip()
        if old == "/dev/null" and new.startswith("b/"):
            res[new[2:]] = "add"
        elif new == "/dev/null" and old.startswith("a/"):
            res[old[2:]] = "del"
        elif new.startswith("b/"):
            res[new[2:]] = "mod"
        else:
            die("patches/%s: cannot read the header '%s' / '%s' (want a/FILE and b/FILE)"
                % (name, line, lines[i + 1]))
    return res


def apply_patch(name, text, td):
    """Apply a patch to td exactly as written: no fuzz, no offset (a stale
    patch is to be refreshed, not guessed into place)."""
    r = subprocess.run(PATCH + ["-d", td], input=text,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = r.stdout.decode(errors="replace")
    if r.returncode != 0:
        die("patches/%s does not apply to the pristine tree (patch --fuzz=0):\n%s"
            % (name, out.rstrip()))
    moved = [l for l in out.splitlines() if re.search(r"\b(offset|fuzz)\b", l)]
    if moved:
        die("patches/%s applies only at an offset; refresh it:\n  %s"
            % (name, "\n  ".join(moved)))


def file_mode(path):
    return "100755" if os.access(path, os.X_OK) else "100644"


# --- upstream files: pristine -> final, cut into blocks ----------------------
def block_starts(fname, lines):
    """For added lines (a run), whether each starts a new block."""
    base = os.path.basename(fname)
    starts = []
    if base.startswith("Kconfig"):
        kw = re.compile(r"^(config|menuconfig|choice|endchoice|menu|endmenu|if|endif|comment|source)\b")
        for i, l in enumerate(lines):
            starts.append(i == 0 or bool(kw.match(l)))
        # Comment lines just above an entry belong to it.
        for i in range(len(lines) - 1, 0, -1):
            if starts[i] and lines[i - 1].startswith("#") and not starts[i - 1]:
                starts[i], starts[i - 1] = False, True
    elif base == "Makefile" or base.endswith(".mk") or base == "Kbuild":
        # A statement with the comment lines above it and its continuation
        # lines; a blank line stays with the block before it.
        prev_open = False
        for i, l in enumerate(lines):
            starts.append(i == 0 or (not prev_open and bool(l.strip())))
            prev_open = l.startswith("#") or l.endswith("\\")
    else:
        prev_blank = False
        for i, l in enumerate(lines):
            starts.append(i == 0 or prev_blank)
            prev_blank = not l.strip()
    return starts


def first_line(fname, block):
    for l in block:
        if l.strip() and not l.startswith("#"):
            return l
    return block[0]


def cut_upstream(fname, old, new, selectors, default):
    """Versions of an upstream file per stanza index.

    old, new: lists of lines (with newlines). selectors: [(stanza index,
    regex)]. Returns (list of (kind, line, stanza)), where kind is '=' for
    upstream lines, '-' for removed and '+' for added ones.
    """
    with tempfile.TemporaryDirectory() as td:
        a, b = os.path.join(td, "a"), os.path.join(td, "b")
        open(a, "w").write("".join(old))
        open(b, "w").write("".join(new))
        r = subprocess.run(["diff", "--unchanged-line-format==%L", "--old-line-format=-%L",
                            "--new-line-format=+%L", a, b], stdout=subprocess.PIPE)
        if r.returncode > 1:
            die("diff of %s failed" % fname)
        stream = r.stdout.decode().splitlines(keepends=True)
    out = []
    i = 0
    unclaimed = []
    while i < len(stream):
        if stream[i][0] == "=":
            out.append(["=", stream[i][1:], -1])
            i += 1
            continue
        j = i
        while j < len(stream) and stream[j][0] != "=":
            j += 1
        run_ = stream[i:j]
        removed = [l[1:] for l in run_ if l[0] == "-"]
        added = [l[1:] for l in run_ if l[0] == "+"]
        plain = [l.rstrip("\n") for l in added]
        starts = block_starts(fname, plain)
        blocks, owners = [], []
        for k, l in enumerate(added):
            if starts[k]:
                blocks.append([])
            blocks[-1].append(l)
        for blk in blocks:
            head = first_line(fname, [l.rstrip("\n") for l in blk])
            owner = None
            for idx, rx in selectors:
                if rx.search(head):
                    owner = idx
                    break
            if owner is None:
                owner = default
                unclaimed.append(head)
            owners.append(owner)
        rm_owner = owners[0] if owners else default
        for l in removed:
            out.append(["-", l, rm_owner])
        for blk, ow in zip(blocks, owners):
            for l in blk:
                out.append(["+", l, ow])
        i = j
    for h in unclaimed:
        note("note: %s: block '%s' is claimed by no stanza; it goes to patch %d"
             % (fname, h.strip(), default + 1))
    return out


def version(cut, k):
    """The file after stanza k (k = -1: pristine)."""
    return "".join(l for kind, l, ow in cut
                   if kind == "=" or (kind == "-" and ow > k) or (kind == "+" and ow <= k))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--conf", required=True)
    ap.add_argument("--branch", required=True)
    ap.add_argument("--rev")
    ap.add_argument("--cover-out")
    o = ap.parse_args()

    proj = Project(o.root, o.rev)
    cover, stanzas = parse_conf(o.conf)

    # Overlay files -> stanzas.
    unclaimed = []
    for top, dest in OVERLAY.items():
        for path, mode in proj.list(top):
            for s in stanzas:
                if any(glob_match(path, g) for g in s.globs):
                    s.files.append((dest + path[len(top):], mode, path))
                    break
            else:
                unclaimed.append(path)
    if unclaimed:
        die("no stanza of %s claims these files (add them to a files: line):\n  %s"
            % (os.path.relpath(o.conf, o.root), "\n  ".join(unclaimed)))

    # Upstream files changed by patches/series: apply it to pristine copies.
    series = []
    if proj.exists("patches/series"):
        for line in proj.read("patches/series").decode().splitlines():
            name = line.split("#", 1)[0].strip()
            if name:
                series.append(name.split()[0])
    git = ["git", "--git-dir", o.git_dir]
    changed = {}
    # A patch a stanza names with patchfile: is that stanza's, whole: the
    # files it touches change only by such patches, in series order.
    owner_of = {}
    for k, s in enumerate(stanzas):
        for p in s.patchfiles:
            if p not in series:
                die("series.conf: patchfile %s is not in patches/series" % p)
            owner_of[p] = k
    whole = [p for p in series if p in owner_of]
    if [owner_of[p] for p in whole] != sorted(owner_of[p] for p in whole):
        die("series.conf: the patchfile: stanzas are not in patches/series order")
    def base_file(td, f):
        """File f of the pristine tree, with its mode, written into td (absent
        if the tree has none). Returns its content (b"" if absent)."""
        path = os.path.join(td, f)
        os.makedirs(os.path.dirname(path) or td, exist_ok=True)
        r = subprocess.run(git + ["cat-file", "blob", "%s:%s" % (o.base, f)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            return b""
        with open(path, "wb") as fh:
            fh.write(r.stdout)
        ls = run(git + ["ls-tree", o.base, "--", f], text=True).split()
        os.chmod(path, 0o755 if ls and ls[0] == "100755" else 0o644)
        return r.stdout

    def snap(td, f):
        """(content, mode) of f in td; (None, None) if a patch deleted it."""
        path = os.path.join(td, f)
        if not os.path.exists(path):
            return (None, None)
        with open(path, "rb") as fh:
            return (fh.read(), file_mode(path))

    texts = {p: proj.read("patches/" + p) for p in series}
    pf_files = {}
    for p in whole:
        for f in patch_files(p, texts[p]):
            pf_files.setdefault(f, p)
    with tempfile.TemporaryDirectory() as td:
        snaps = {}
        for f in pf_files:
            base_file(td, f)
            snaps[f] = [snap(td, f)]
        for k in range(len(stanzas)):
            for p in whole:
                if owner_of[p] == k:
                    apply_patch(p, texts[p], td)
            for f in pf_files:
                snaps[f].append(snap(td, f))
        for f, v in snaps.items():
            # v[0]: pristine, v[k + 1]: after stanza k; content None: deleted.
            changed[f] = (lambda v: lambda k: v[k + 1])(v)
    with tempfile.TemporaryDirectory() as td:
        touched = []
        for p in series:
            if p in owner_of:
                continue
            for f, kind in patch_files(p, texts[p]).items():
                if f in pf_files:
                    die("patches/%s touches %s, which patches/%s (a patchfile:) has"
                        % (p, f, pf_files[f]))
                if kind == "del":
                    die("patches/%s deletes %s: blocks cannot delete a file; make that "
                        "patch a patchfile: stanza of patches/series.conf" % (p, f))
                if f not in touched:
                    touched.append(f)
        for f in touched:
            base_file(td, f)
        for p in series:
            if p not in owner_of:
                apply_patch(p, texts[p], td)
        for f in touched:
            # A file patches/series creates (a KUnit file) starts empty.
            r = subprocess.run(git + ["cat-file", "blob", "%s:%s" % (o.base, f)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            old = (r.stdout if r.returncode == 0 else b"").decode().splitlines(True)
            new = open(os.path.join(td, f)).read().splitlines(True)
            mode = file_mode(os.path.join(td, f))
            sel = [(i, rx) for i, s in enumerate(stanzas) for fn, rx in s.upstream if fn == f]
            default = min([i for i, _ in sel], default=0)
            changed[f] = (lambda cut, mode: lambda k: (version(cut, k).encode(), mode))(
                cut_upstream(f, old, new, sel, default), mode)

    # Commit, stanza by stanza.
    ident = {}
    for key in ("user.name", "user.email"):
        r = subprocess.run(["git", "-C", o.root, "config", key], stdout=subprocess.PIPE)
        ident[key] = r.stdout.decode().strip() or ("ksym" if key == "user.name" else "ksym@localhost")
    date = run(["git", "-C", o.root, "log", "-1", "--format=%cI", o.rev or "HEAD"], text=True).strip()
    env = dict(os.environ, GIT_AUTHOR_NAME=ident["user.name"], GIT_AUTHOR_EMAIL=ident["user.email"],
               GIT_COMMITTER_NAME=ident["user.name"], GIT_COMMITTER_EMAIL=ident["user.email"],
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    idx = tempfile.NamedTemporaryFile(prefix="ksym-series-index.", delete=False)
    idx.close()
    env["GIT_INDEX_FILE"] = idx.name
    try:
        run(git + ["read-tree", o.base], env=env)
        parent = run(git + ["rev-parse", o.base + "^{commit}"], text=True).strip()
        tree = run(git + ["rev-parse", o.base + "^{tree}"], text=True).strip()
        made = 0
        for k, s in enumerate(stanzas):
            entries = []
            for dest, mode, path in s.files:
                entries.append((mode, proj.read(path), dest))
            for f, ver in changed.items():
                if ver(k) == ver(k - 1):
                    continue
                data, mode = ver(k)
                if data is None:
                    # Mode 0 removes the entry (--force-remove wants a work tree).
                    run(git + ["update-index", "--index-info"],
                        data=("0 %s\t%s\n" % ("0" * 40, f)).encode(), env=env)
                else:
                    entries.append((mode, data, f))
            for mode, data, dest in entries:
                sha = run(git + ["hash-object", "-w", "--stdin"], data=data, text=True).strip()
                run(git + ["update-index", "--add", "--cacheinfo", "%s,%s,%s" % (mode, sha, dest)], env=env)
            new_tree = run(git + ["write-tree"], env=env, text=True).strip()
            if new_tree == tree:
                note("patch '%s' left out: none of its files or blocks exist" % s.name)
                continue
            body = "\n".join(s.body).strip("\n")
            msg = "%s\n\n%s%sSigned-off-by: %s <%s>\n" % (
                s.subject, body, "\n\n" if body else "", ident["user.name"], ident["user.email"])
            parent = run(git + ["commit-tree", new_tree, "-p", parent], data=msg.encode(),
                         env=env, text=True).strip()
            tree = new_tree
            made += 1
        run(git + ["update-ref", "refs/heads/" + o.branch, parent])
    finally:
        os.unlink(idx.name)
    if o.cover_out and cover:
        with open(o.cover_out, "w") as f:
            f.write(cover.subject + "\n" + "\n".join(cover.body) + "\n")
    print(parent)


if __name__ == "__main__":
    # kill (make-patches.sh's TERM) ends it as Ctrl-C does: through the
    # finally and with blocks, which remove the temporary index and tree.
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(143))
    main()
