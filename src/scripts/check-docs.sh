#!/usr/bin/env bash
# make check-docs: the README and docs/ say only what the repository does.
#
#   src/scripts/check-docs.sh [file.md ...]     (default: README.md and docs/*.md)
#
# For every fenced block of the files:
#   - a command `make <target> ...` (in a ```bash/```sh/```shell block, or a `$ make ...` line of any block) must
#     name a target of the Makefile;
#   - a repository path it names (deploy/..., examples/..., src/..., crds/..., docs/...) must exist. Build outputs
#     (paths with a target/ folder), placeholders (`<name>`, `...`) and kubectl's `deploy/<name>` are left out; a
#     `*` is matched as a glob.
# A shell block on the line right after `<!-- check: run -->` is run with `bash -e -o pipefail` from the repository
# root, and must exit 0 within CHECK_DOCS_TIMEOUT seconds (default 300: `make plan-example` may first build the plan
# jar). A block right after `<!-- check: output -->` is output the docs quote: every number in it must appear in what
# the last run block before it (in the same file) printed, so a quoted figure that moved fails the check.
# Every relative link `](path)` outside fenced blocks must point to an existing file, and its `#anchor`, when the
# target is a Markdown file, to one of its headings (as GitHub makes anchors of them).
# Prints one line per failure (file:line: what) and the summary line; exits 1 when anything failed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
timeout_s="${CHECK_DOCS_TIMEOUT:-300}"

if (($# > 0)); then
  files=("$@")
else
  files=(README.md)
  for f in docs/*.md; do [[ -e "$f" ]] && files+=("$f"); done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Run blocks and the Makefile query as a user at a shell would, not as a sub-make of `make test`.
clean_env=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u GNUMAKEFLAGS)

failures=0
blocks=0
make_targets_checked=0
paths_checked=0
blocks_run=0
outputs_checked=0
links_checked=0

fail() {
  echo "check-docs: FAIL $1: $2" >&2
  failures=$((failures + 1))
}

# The Makefile's targets, from make's own database (-q: nothing is run).
"${clean_env[@]}" make -qp -f Makefile > "$tmp/make-database" 2> /dev/null || true # -q: 1, the goal is not up to date
awk '/^# Not a target:/ { skip = 1; next }
         /^[A-Za-z0-9_.-]+:([^=]|$)/ { if (!skip) { sub(/:.*/, ""); print } }
         { skip = 0 }' "$tmp/make-database" | sort -u > "$tmp/targets"
[[ -s "$tmp/targets" ]] || { echo "check-docs: could not read the Makefile's targets" >&2; exit 1; }

# blocks <file> <dir>: writes each fenced block of <file> to <dir>/<n> and one line per block to <dir>/index:
# n <TAB> first content line <TAB> language <TAB> mark (run, output or -). Fences may be indented (list items).
blocks_of() {
  awk -v dir="$2" '
    function mark_of(line) {
      if (line ~ /^[ \t]*<!-- check: run -->[ \t]*$/) return "run"
      if (line ~ /^[ \t]*<!-- check: output -->[ \t]*$/) return "output"
      return "-"
    }
    !inside && /^[ \t]*```/ {
      inside = 1; n++
      lang = $0; sub(/^[ \t]*```/, "", lang); sub(/[ \t].*$/, "", lang)
      indent = $0; sub(/```.*$/, "", indent)
      printf "%d\t%d\t%s\t%s\n", n, NR + 1, (lang == "" ? "-" : lang), mark_of(previous) > (dir "/index")
      printf "" > (dir "/" n)
      previous = $0; next
    }
    inside && /^[ \t]*```[ \t]*$/ { inside = 0; close(dir "/" n); previous = $0; next }
    inside { line = $0; if (indent != "" && index(line, indent) == 1) line = substr(line, length(indent) + 1)
             print line > (dir "/" n); next }
    { previous = $0 }
    END { if (inside) printf "unclosed\t%d\n", NR > (dir "/unclosed") }
  ' "$1"
}

# The text of a shell line with quoted strings and comments taken out, so `make plan ARGS='--memory 2Gi'` names
# one target and `# make foo` none.
unquoted() {
  sed -E -e "s/'[^']*'/Q/g" -e 's/"[^"]*"/Q/g' -e 's/(^|[[:space:]])#.*$//' <<< "$1"
}

# check_make <file> <line number> <shell text>: every make command of the line names a Makefile target.
check_make() {
  local where="$1:$2" text
  text="$(unquoted "$3")"
  # Each command of the line: split at ; && || | & ( ) $( ` and redirections.
  while IFS= read -r command; do
    command="${command#"${command%%[![:space:]]*}"}"
    command="${command#\$ }"
    [[ "$command" =~ ^make([[:space:]]|$) ]] || continue
    local word words
    read -ra words <<< "${command#make}"
    for word in "${words[@]}"; do
      [[ "$word" == -* || "$word" == *=* ]] && continue
      make_targets_checked=$((make_targets_checked + 1))
      grep -qxF -- "$word" "$tmp/targets" || fail "$where" "make $word: no target '$word' in the Makefile"
    done
  done < <(sed -E -e 's/(\$\(|`|&&|\|\||[0-9]*[<>]|[;|()&])/\n/g' <<< "$text")
}

# check_paths <file> <line number> <text>: every repository path the line names exists.
check_paths() {
  local where="$1:$2" path
  while IFS= read -r path; do
    [[ -z "$path" ]] && continue
    path="${path%%[.,:;]}"
    path="${path%%[.,:;]}"
    [[ "$path" == *'...'* || "$path" == *'<'* || "$path" == *'{'* || "$path" == *'$'* ]] && continue
    [[ "/$path/" == */target/* ]] && continue
    # kubectl's deploy/<name> is a Deployment, not a folder.
    [[ "$path" =~ ^deploy/[a-z0-9-]+$ && "$3" =~ (^|[^A-Za-z0-9_-])kubectl[[:space:]] ]] && continue
    paths_checked=$((paths_checked + 1))
    if [[ "$path" == *'*'* ]]; then
      compgen -G "$path" > /dev/null || fail "$where" "$path: matches no file"
    elif [[ ! -e "$path" ]]; then
      fail "$where" "$path: no such file or directory"
    fi
  done < <(grep -oE '(^|[^A-Za-z0-9_./~$-])(deploy|examples|src|crds|docs)/[A-Za-z0-9_./*<>{}$+@-]*' <<< "$3" \
    | sed -E 's/^[^a-z]//' || true)
}

# run_block <file> <line> <block file> <output file>
run_block() {
  local status=0
  blocks_run=$((blocks_run + 1))
  (cd "$repo" && "${clean_env[@]}" timeout "$timeout_s" bash -e -o pipefail "$3") < /dev/null > "$4" 2>&1 || status=$?
  if ((status != 0)); then
    fail "$1:$2" "the block marked runnable exited $status; its last lines:"
    tail -n 15 "$4" | sed 's/^/    /' >&2
  fi
}

# check_output <file> <line> <quoted block> <output of the last run block>
check_output() {
  local n missing=()
  outputs_checked=$((outputs_checked + 1))
  if [[ ! -f "$4" ]]; then
    fail "$1:$2" "quoted output with no runnable block before it in the file"
    return
  fi
  while IFS= read -r n; do
    grep -qF -- "$n" "$4" || missing+=("$n")
  done < <(grep -oE '[0-9]+([.,][0-9]+)*' "$3" | sort -u)
  if ((${#missing[@]} > 0)); then
    fail "$1:$2" "quoted output holds figures the command no longer prints: ${missing[*]:0:12}"
  fi
}

# The anchors of a Markdown file as GitHub makes them from its headings.
anchors_of() {
  awk '
    /^[ \t]*```/ { inside = !inside; next }
    inside || !/^#+[ \t]/ { next }
    {
      h = $0; sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#*[ \t]*$/, "", h)
      h = tolower(h)
      gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
      if (h in seen) { seen[h]++; print h "-" seen[h] } else { seen[h] = 0; print h }
    }' "$1"
}

# check_links <file>: relative links outside fenced blocks resolve.
check_links() {
  local file="$1" dir line target path anchor
  dir="$(dirname "$file")"
  while IFS=$'\t' read -r line target; do
    case "$target" in http://* | https://* | mailto:*) continue ;; esac
    links_checked=$((links_checked + 1))
    path="${target%%#*}"
    anchor=""
    [[ "$target" == *'#'* ]] && anchor="${target#*#}"
    if [[ -z "$path" ]]; then
      path="$file"
    else
      path="$dir/$path"
      if [[ ! -e "$path" ]]; then
        fail "$file:$line" "link ($target): $path does not exist"
        continue
      fi
    fi
    if [[ -n "$anchor" && "$path" == *.md && -f "$path" ]]; then
      anchors_of "$path" | grep -qxF -- "$anchor" || fail "$file:$line" "link ($target): no heading #$anchor in $path"
    fi
  done < <(awk '
    /^[ \t]*```/ { inside = !inside; next }
    inside { next }
    {
      rest = $0
      while (match(rest, /\]\([^) \t]+\)/)) {
        printf "%d\t%s\n", NR, substr(rest, RSTART + 2, RLENGTH - 3)
        rest = substr(rest, RSTART + RLENGTH)
      }
    }' "$file")
}

for file in "${files[@]}"; do
  [[ -f "$file" ]] || { fail "$file" "no such file"; continue; }
  dir="$tmp/blocks/$(tr '/' '_' <<< "$file")"
  mkdir -p "$dir"
  : > "$dir/index"
  blocks_of "$file" "$dir"
  [[ -f "$dir/unclosed" ]] && fail "$file" "a fenced block is not closed"
  last_output=""
  while IFS=$'\t' read -r n first lang mark; do
    shell=0
    case "$lang" in bash | sh | shell) shell=1 ;; esac
    ((shell)) && blocks=$((blocks + 1))
    i=0
    while IFS= read -r text || [[ -n "$text" ]]; do
      line=$((first + i))
      i=$((i + 1))
      if ((shell)) || [[ "$text" =~ ^[[:space:]]*\$\ make([[:space:]]|$) ]]; then
        check_make "$file" "$line" "$text"
      fi
      check_paths "$file" "$line" "$text"
    done < "$dir/$n"
    case "$mark" in
      run)
        if ((shell)); then
          last_output="$dir/$n.out"
          run_block "$file" "$first" "$dir/$n" "$last_output"
        else
          fail "$file:$first" "<!-- check: run --> before a block that is not bash, sh or shell"
        fi
        ;;
      output) check_output "$file" "$first" "$dir/$n" "$last_output" ;;
    esac
  done < "$dir/index"
  check_links "$file"
done

echo "check-docs: links_checked=$links_checked outputs_checked=$outputs_checked"
echo "check-docs: files=${#files[@]} blocks=$blocks make_targets_checked=$make_targets_checked paths_checked=$paths_checked blocks_run=$blocks_run failures=$failures"
((failures == 0))
