# stalefs-fuse: the FUSE server (libfuse3's low-level API, libseccomp for its
# sandbox).  Without libfuse3-dev and libseccomp-dev (`make deps`) `make`
# builds everything else and says so; `make stalefs-fuse` and check-fuse fail.
SFUSE_SRC := $(wildcard fuse/*.c)
SFUSE := $(BUILD)/stalefs-fuse
SFUSE_CFLAGS := $(shell pkg-config --cflags fuse3 libseccomp 2>/dev/null)
SFUSE_LIBS := $(shell pkg-config --libs fuse3 libseccomp 2>/dev/null)
SFUSE_HAVE := $(shell pkg-config --exists fuse3 libseccomp 2>/dev/null && echo yes)
SFUSE_MISSING_MSG := stalefs-fuse: libfuse3-dev or libseccomp-dev is not installed (make deps)

$(patsubst %.c,$(BUILD)/%.o,$(SFUSE_SRC)): CFLAGS += $(SFUSE_CFLAGS)
$(patsubst %.c,$(BUILD)/%.o,$(SFUSE_SRC)): $(ERR_H)

.PHONY: stalefs-fuse stalefs-fuse-if-libs
all: stalefs-fuse-if-libs
# util-linux runs /sbin/mount.fuse.stalefs for `mount -t fuse.stalefs`: the same program,
# which reads mount(8)'s arguments when called by that name.
SFUSE_HELPER := $(BUILD)/mount.fuse.stalefs
# Installed in BINDIR (users mount their own images with it, through fusermount3),
# the helper beside mount's other helpers, relative when both are under PREFIX.
SFUSE_HELPER_TARGET = $(if $(filter $(SBINDIR),$(MOUNT_HELPER_DIR)),../bin/stalefs-fuse,$(BINDIR)/stalefs-fuse)
ifeq ($(SFUSE_HAVE),yes)
INSTALL_FUSE = install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MOUNT_HELPER_DIR) && \
	install -m 0755 $(SFUSE) $(DESTDIR)$(BINDIR)/ && \
	ln -sf $(SFUSE_HELPER_TARGET) $(DESTDIR)$(MOUNT_HELPER_DIR)/mount.fuse.stalefs
PROGRAMS += $(SFUSE) $(SFUSE_HELPER)
stalefs-fuse stalefs-fuse-if-libs: $(SFUSE) $(SFUSE_HELPER)
$(SFUSE): $(patsubst %.c,$(BUILD)/%.o,$(SFUSE_SRC)) $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(SFUSE_LIBS) $(LDLIBS)
$(SFUSE_HELPER): | $(SFUSE)
	ln -sf stalefs-fuse $@
else
stalefs-fuse-if-libs:
	@echo "$(SFUSE_MISSING_MSG); building the other tools"
stalefs-fuse $(SFUSE):
	@echo "$(SFUSE_MISSING_MSG)" >&2; exit 1
endif
