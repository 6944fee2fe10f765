# stamp.sh - sourced by the scripts that build a generated file: read the
# compiler and flags its stamp names
#   " * Build: <cc> -O2 <flags> -c this_file.c   (...)"
# so no script keeps a second copy of the target table (ir/target.c).
stamp_cc() { sed -n 's/^ \* Build: \([^ ]*gcc\) -O2 .*/\1/p' "$1"; }                    # file
stamp_flags() { sed -n 's/^ \* Build: [^ ]*gcc -O2 \(.*\)-c this_file\.c.*/\1/p' "$1"; } # file
