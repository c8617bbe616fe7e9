/* bench/startup/floor.c - the start-up floor: linked first with the
 * 100,000-probe objects, these strong, empty definitions replace every
 * object's (weak) registration constructor and destructor. The binary keeps
 * its probes (code, site table, points, their relocations and pages) and
 * registers none: what the same binary costs before edgeprobe does anything. */
__attribute__((visibility("hidden"))) void edgeprobe__object_init(void);
__attribute__((visibility("hidden"))) void edgeprobe__object_fini(void);
void edgeprobe__object_init(void) {}
void edgeprobe__object_fini(void) {}
