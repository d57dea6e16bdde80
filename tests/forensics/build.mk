# Forensic inspection tests: tests/forensics/run-tests builds small evidence images
# (trees in stalefs and ext4, whole-disk images with partition tables, E01 files)
# and checks the examiner's commands against the real tools (TSK's fls, mactime,
# mmls; mkfs.ext4, sfdisk, ewfacquire).  `make check-forensics` runs it with the
# sanitized tools (build/san), then with the normal build.
FORENSICS_TOOLS = debugfs.stalefs mkfs.stalefs fsck.stalefs tunefs.stalefs stalefs-timeline stalefs-mmls
.PHONY: check-forensics
CHECK_TARGETS += check-forensics
check-forensics:
	$(MAKE) --no-print-directory SAN=0 $(addprefix build/,$(FORENSICS_TOOLS))
	$(MAKE) --no-print-directory SAN=1 $(addprefix build/san/,$(FORENSICS_TOOLS))
	tests/forensics/run-tests $(SANBIN)
	tests/forensics/run-tests $(BIN)
