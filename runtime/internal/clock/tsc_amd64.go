package clock

// rdtsc reads the time-stamp counter (tsc_amd64.s).
func rdtsc() uint64

// cpuid runs CPUID for leaf eax (tsc_amd64.s).
func cpuid(eax uint32) (a, b, c, d uint32)

// invariantTSC reports whether the counter ticks at one rate whatever the
// core's frequency or sleep state (CPUID 0x80000007, EDX bit 8), the
// condition for using it as a clock.
func invariantTSC() bool {
	if max, _, _, _ := cpuid(0x80000000); max < 0x80000007 {
		return false
	}
	_, _, _, d := cpuid(0x80000007)
	return d&(1<<8) != 0
}
