/* Keeps worker processes from truncating the primary's capture files.
 * DPDK 22.11's net_pcap driver, probing its ports in a secondary process, opens every
 * tx_pcap file again with pcap_dump_open(), which truncates it: a worker attaching while the
 * primary writes a capture (a respawned worker, one started by hand) would wipe it. Workers
 * never transmit on net_pcap ports (that I/O stays in the primary), so in this process a
 * capture opened for writing goes to /dev/null. This definition wins over libpcap's for the
 * driver because the executable exports it (see secondary/meson.build).
 */
#include <dlfcn.h>
#include <stddef.h>

#include <pcap/pcap.h>

pcap_dumper_t *
pcap_dump_open(pcap_t *p, const char *fname)
{
	pcap_dumper_t *(*real)(pcap_t *, const char *);

	(void)fname;
	real = (pcap_dumper_t * (*)(pcap_t *, const char *)) dlsym(RTLD_NEXT, "pcap_dump_open");
	return real != NULL ? real(p, "/dev/null") : NULL;
}
