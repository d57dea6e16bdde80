# check-deb: builds the Debian packages (make deb) and checks them for real:
# one version everywhere, lintian clean, the package contents, the DKMS
# source building stalefs.ko for the installed 6.1 kernel in scratch trees
# under build/deb/test (nothing is installed on the host), and the packaged
# mkfs/fsck run on an image.  See tests/deb/run-tests.
.PHONY: check-deb
CHECK_TARGETS += check-deb
check-deb: deb-deps
	MAKE="$(MAKE)" tests/deb/run-tests
