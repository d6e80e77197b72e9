# Generated blocks of a markdown document, between `<!-- begin NAME -->` and `<!-- end NAME -->`
# lines. Sourced; the caller sets `doc` (the document) and `tmp` (a scratch directory).

# The text between the markers of block $1.
block() { awk -v b="<!-- begin $1 -->" -v e="<!-- end $1 -->" '$0==e{f=0} f{print} $0==b{f=1}' "$doc"; }
# Replaces that text with the contents of file $2.
replace_block() {
  awk -v b="<!-- begin $1 -->" -v e="<!-- end $1 -->" -v src="$2" '
    $0==b {print; while ((getline l < src) > 0) print l; skip=1; next}
    $0==e {skip=0}
    !skip {print}' "$doc" > "$tmp/doc" && cp "$tmp/doc" "$doc"
}
