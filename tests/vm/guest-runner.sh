#!/bin/bash
# Runs inside the VM, chrooted into the host root (started by init.sh).
# Reads the plan run-vm wrote into the share, then for each scenario:
#   zero the scratch disks, clear dmesg, insmod stalefs if the scenario
#   needs it, run it with its log going to the share, clean up what it left
#   mounted, rmmod stalefs, scan dmesg for kernel splats, and write a status
#   file.  run-vm on the host turns the status files into PASS/FAIL lines.
# Not `set -e`: one scenario's failure must never stop the others.
# Every exec costs ~0.1 s under TCG, so bash builtins are preferred here.
set -uo pipefail
shopt -s nullglob dotglob

share=/run/vm/share
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8
# dmsetup otherwise waits for udev, which does not run here.
export DM_DISABLE_UDEV=1

# shellcheck source=/dev/null
source "$share/plan" || { echo "guest-runner: no plan" >"$share/init-failed"; exit 1; }
# Tells run-vm the guest is up (it reports the boot time).  One write(2):
# run-vm never sees it half-written, so no temp file and rename.
read -r up _ </proc/uptime
echo "$up" >"$share/up"
scratch=/tmp/vm-scratch
mkdir -p "$scratch"

# A splat is any of these in the kernel log.  "blocked for more than" is the
# hung-task detector's actual wording; "Call Trace" catches any stack dump.
splat_re='(^|[^[:alnum:]_])(BUG|WARNING|Oops|KASAN|UBSAN)([^[:alnum:]_]|$)|general protection|kernel BUG|hung task|blocked for more than|Call Trace'

# The whole kernel log, streamed to the host as it happens, so a hang or
# panic still leaves the evidence behind.
dmesg -w >"$share/kernel.log" 2>&1 &

# Disks by name: run-vm gives each virtio disk serial=NAME; device names
# (vda, vdb...) depend on probe order, serials do not.
declare -A disk_dev=()
for s in /sys/block/vd*/serial; do
	[[ -e $s ]] || continue
	d=${s%/serial}
	disk_dev[$(<"$s")]=/dev/${d##*/}
done
disk_env=()
for n in "${VM_DISK_NAMES[@]}"; do
	var=${n^^}
	var=VM_DISK_${var//-/_}
	disk_env+=("$var=${disk_dev[$n]:-/dev/missing-disk-$n}")
done

uptime_s() { local up _; read -r up _ </proc/uptime; echo "$up"; }

# Load stalefs and whatever modules it depends on.  Prints why on failure.
load_stalefs() {
	[[ -d /sys/module/stalefs ]] && return 0   # left loaded by a failed rmmod
	if [[ -z $VM_MODULE ]]; then
		echo "stalefs module not found at $VM_MODULE_HOST (run make first?)"
		return 1
	fi
	local dep out
	for dep in $(modinfo -F depends "$VM_MODULE" 2>/dev/null | tr ',' ' '); do
		modprobe "$dep" 2>&1 || { echo "modprobe $dep (needed by stalefs) failed"; return 1; }
	done
	out=$(insmod "$VM_MODULE" 2>&1) || { echo "insmod $VM_MODULE_HOST failed: $out"; return 1; }
}

# Is path the repository or a directory above it?
holds_repo() {
	[[ $STALEFS_ROOT == "$1" || $STALEFS_ROOT == "$1"/* ]]
}

# Undo what a scenario left behind so the next one starts clean and rmmod
# can work: its processes, mounts under /mnt and /tmp, loop and dm devices.
cleanup_after() {
	local pgid=$1 mp mps=() i
	kill -KILL -- "-$pgid" 2>/dev/null
	# Mount points are field 2 of /proc/mounts (octal-escaped); unmount in
	# reverse order of mounting, so nested mounts go first.
	# The repository itself may be bound under /tmp (a checkout there): never it.
	while read -r _ mp _; do
		[[ $mp == /mnt/* || $mp == /tmp/* ]] && ! holds_repo "$mp" && mps+=("$mp")
	done </proc/mounts
	for ((i = ${#mps[@]} - 1; i >= 0; i--)); do
		printf -v mp '%b' "${mps[i]}"
		echo "vm-runner: scenario left $mp mounted; unmounting"
		# A frozen filesystem holds an active reference: unmounted, it
		# would stay alive (and its device busy) until thawed.
		fsfreeze -u "$mp" 2>/dev/null && echo "vm-runner: $mp was frozen; thawed"
		umount "$mp" 2>/dev/null || umount -l "$mp"
	done
	local dms=(/sys/block/dm-*)
	if ((${#dms[@]})); then
		echo "vm-runner: removing leftover dm devices"
		dmsetup remove_all -f >/dev/null 2>&1
	fi
	# A bound loop device has a loop/ dir in sysfs.
	local loops=(/sys/block/loop*/loop)
	((${#loops[@]} == 0)) || losetup -D
	# Empty /mnt and /tmp, keeping the scratch dir itself.
	local f left=()
	for f in /mnt/* /tmp/* "$scratch"/*; do
		[[ $f == "$scratch" ]] || holds_repo "$f" || left+=("$f")
	done
	((${#left[@]} == 0)) || rm -rf "${left[@]}"
}

# What keeps a disk busy: dm/md holders and mounts of it (for the report
# when an earlier scenario left it held).
disk_holders() {
	local d=${1##*/} h out=''
	for h in /sys/block/"$d"/holders/*; do out+="${h##*/} "; done
	while read -r dev mp _; do
		[[ $dev == "$1" ]] && out+="mounted at $mp "
	done </proc/mounts
	echo "${out:-nothing visible (an unmounted but still active superblock?)}"
}

# Run one scenario; sets $reason empty for a pass.
run_one() {
	local i=$1 name=${VM_SCEN_NAMES[$1]} path=${VM_SCEN_PATHS[$1]}
	local log=$share/logs/$name.log results=$share/results/$name
	local pid rc wd='' msg kmsg t0 t1
	reason=
	: >"$log"

	# Fresh, all-zero disks for every scenario after the first (the images
	# start sparse).  Write-zeroes with unmap punches holes on the host.
	if ((i > 0)); then
		for n in "${VM_DISK_NAMES[@]}"; do
			# A benchmark disk (run-vm's :full) stays as it is.
			[[ " ${VM_DISK_FULL[*]-} " == *" $n "* ]] && continue
			msg=$(blkdiscard -f -z "${disk_dev[$n]}" 2>&1) ||
				{ reason="could not zero disk $n: $msg (held by: $(disk_holders "${disk_dev[$n]}"))"; return; }
		done
	fi

	# "# needs:" words: stalefs is our module, anything else a host module.
	for w in ${VM_SCEN_NEEDS[$i]}; do
		if [[ $w == stalefs ]]; then
			msg=$(load_stalefs) && continue
		else
			msg=$(modprobe "$w" 2>&1) && continue
			msg="cannot load module $w: $msg"
		fi
		{ echo "vm-runner: $msg"; echo "---- kernel log ----"; dmesg -c; } >>"$log"
		reason=$msg
		return
	done

	# Every scenario sources tests/vm/lib.sh; were the repository to vanish,
	# one whose last command happened to succeed would pass without testing.
	if [[ ! -r $STALEFS_ROOT/tests/vm/lib.sh ]]; then
		reason="the repository is not visible in the guest ($STALEFS_ROOT/tests/vm/lib.sh)"
		return
	fi

	t0=$(uptime_s)
	echo "vm-runner: ${t0}s running $name" >/dev/console
	# setsid: the scenario and all its children form one process group that
	# cleanup_after can kill.  cwd is the scratch dir.
	(
		cd "$scratch" || exit 1
		((${#disk_env[@]})) && export "${disk_env[@]}"
		export VM_RESULTS="$results" VM_SCRATCH="$scratch" VM_SCENARIO="$name" \
			STALEFS_ROOT VM_KVER
		exec setsid bash "$path"
	) >>"$log" 2>&1 </dev/null &
	pid=$!
	# Watchdog for "# timeout:".  If it is gone when the scenario ends, it
	# fired (killed the scenario); otherwise it is stopped.
	if ((VM_SCEN_TIMEOUT[i] > 0)); then
		(sleep "${VM_SCEN_TIMEOUT[$i]}"; kill -KILL -- "-$pid") 2>/dev/null &
		wd=$!
	fi
	wait "$pid" 2>/dev/null   # no "Killed" job notice on the console
	rc=$?
	if [[ -n $wd ]] && ! kill "$wd" 2>/dev/null; then
		reason="timed out after ${VM_SCEN_TIMEOUT[$i]}s"
	elif ((rc != 0)); then
		reason="exit status $rc"
	fi
	t1=$(uptime_s)
	t1=$((10#${t1/./} - 10#${t0/./}))   # hundredths of a second
	msg="vm-runner: $name ran $((t1 / 100)).$((t1 % 100 / 10))s"
	echo "$msg" >/dev/console
	echo "$msg" >>"$log"
	cleanup_after "$pid" >>"$log" 2>&1

	if [[ -d /sys/module/stalefs && " ${VM_SCEN_NEEDS[$i]} " == *" stalefs "* ]]; then
		# Unloading checks that no inode/mount was leaked (slab caches of a
		# leaking module complain on destroy, and are caught below).
		msg=$(rmmod stalefs 2>&1) || reason=${reason:-"rmmod stalefs failed: $msg"}
	fi

	# Read and clear: what the kernel says from here on (zeroing the disks,
	# loading modules) belongs to the next scenario.
	kmsg=$(dmesg -c)
	{ echo "---- kernel log during $name ----"; echo "$kmsg"; } >>"$log"
	while read -r msg; do
		if [[ $msg =~ $splat_re ]]; then
			reason="kernel: $msg${reason:+; $reason}"
			break
		fi
	done <<<"$kmsg"
}

dmesg -C   # boot messages are nobody's fault
for i in "${!VM_SCEN_NAMES[@]}"; do
	run_one "$i"
	name=${VM_SCEN_NAMES[$i]}
	reason=${reason//$'\n'/; }
	# One write(2), so run-vm never reads it half-written.
	if [[ -z $reason ]]; then echo PASS; else echo "FAIL $reason"; fi >"$share/status/$name"
done

sync
