# `make deb`: the Debian packages (debian/), built with dpkg-buildpackage from
# a copy of the tree in build/deb/stalefs-VERSION, so the .debs, .changes and
# .buildinfo (written to the parent directory) land in build/deb/ and the
# source tree is never written to.  The copy holds what git tracks plus
# untracked files not ignored (a working tree's edits are packaged as they
# are); outside a git checkout, everything but build/ and .git.  (Recursive
# variables: KERNEL_VERSION_STR comes from kernel/build.mk, read later.)
DEB_DIR := build/deb
DEB_UPSTREAM_VERSION = $(KERNEL_VERSION_STR)
DEB_SRC = $(DEB_DIR)/stalefs-$(DEB_UPSTREAM_VERSION)

.PHONY: deb deb-deps deb-print-install
deb-deps:
	@tools/install-deps build packaging

deb: deb-deps
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version); \
	if [ "$${v%-*}" != "$(DEB_UPSTREAM_VERSION)" ]; then \
		echo "make deb: debian/changelog is at $$v but kernel/build.mk's KERNEL_VERSION_STR is $(DEB_UPSTREAM_VERSION);" \
		     "change both (and PACKAGE_VERSION in kernel/dkms.conf)" >&2; exit 1; fi
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
		while IFS= read -r -d '' f; do [ -e "$$f" ] || [ -L "$$f" ] && printf '%s\0' "$$f"; done | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_SRC); \
	else \
		tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $(DEB_SRC); \
	fi
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_SRC)
	@ls -1 $(DEB_DIR)

# For tests/deb: what `make install-tools` installs (file names only).
deb-print-install:
	@echo "programs: $(notdir $(INSTALL_PROGRAMS))"
	@echo "bin: $(if $(INSTALL_FUSE),stalefs-fuse)"
	@echo "helpers: $(if $(INSTALL_FUSE),mount.fuse.stalefs)"
	@echo "man8: $(notdir $(MAN8))"
