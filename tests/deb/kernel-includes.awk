# tests/deb/kernel-includes.awk: the quoted #include lines a file compiles
# with when __KERNEL__ is defined (as in the module build).  Only __KERNEL__
# conditionals are decided (#ifdef/#ifndef/#if [!]defined(__KERNEL__) and
# their #else/#elif); any other #if is taken as true for both branches, so
# includes under it are listed too.  Prints one header name per line.
function active(   i) {
	for (i = 1; i <= depth; i++)
		if (!on[i]) return 0
	return 1
}
/^[ \t]*#[ \t]*ifdef[ \t]+__KERNEL__([ \t]|$)/		{ on[++depth] = 1; known[depth] = 1; next }
/^[ \t]*#[ \t]*ifndef[ \t]+__KERNEL__([ \t]|$)/	{ on[++depth] = 0; known[depth] = 1; next }
/^[ \t]*#[ \t]*if[ \t]+defined[ \t]*\(?[ \t]*__KERNEL__[ \t]*\)?[ \t]*$/	{ on[++depth] = 1; known[depth] = 1; next }
/^[ \t]*#[ \t]*if[ \t]+![ \t]*defined[ \t]*\(?[ \t]*__KERNEL__[ \t]*\)?[ \t]*$/	{ on[++depth] = 0; known[depth] = 1; next }
/^[ \t]*#[ \t]*if/				{ on[++depth] = 1; known[depth] = 0; next }
/^[ \t]*#[ \t]*(else|elif)([ \t]|$)/			{ if (depth && known[depth]) on[depth] = !on[depth]; next }
/^[ \t]*#[ \t]*endif([ \t/]|$)/				{ if (depth) depth--; next }
/^[ \t]*#[ \t]*include[ \t]*"/ {
	if (active()) {
		s = $0
		sub(/^[^"]*"/, "", s)
		sub(/".*/, "", s)
		print s
	}
}
