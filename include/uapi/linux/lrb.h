/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * LRB: the user-space ABI of the LRB tracing ring buffer.
 *
 * Trace format. A channel has one stream per CPU; a stream is a sequence of
 * CTF 1.8 packets, each the first packet_size bytes of a sub-buffer exactly
 * as the kernel wrote it: a struct lrb_packet_header (packet header and
 * context, 72 bytes), then records, then padding up to packet_size, at
 * most 7 bytes. Records follow one another byte to byte, unaligned, and
 * the last one ends at content_size. A record is a header, the 16-bit
 * length of its payload unless its event has a fixed length in the
 * channel or its payload holds it, and the payload. The header is compact
 * (4 bytes: an event with a fixed 8-byte payload costs 12) for ids up to
 * 30 when the record comes less than 2^27 ns after the previous one,
 * extended (13 bytes) otherwise.
 *
 * Metadata. The channel's "metadata" file in tracefs gives the CTF
 * description (TSDL) of all of it, event layouts included, so stream files
 * copied untouched plus that text make a CTF trace directory.
 *
 * Control. In /sys/kernel/tracing/lrb/: "control" creates and removes
 * channels; a channel directory holds its settings, "enable", "stats",
 * "metadata", "annotate" and streams/cpuN. The ioctls below apply to the
 * stream files; see Documentation/trace/lrb.rst.
 */
#ifndef _UAPI_LINUX_LRB_H
#define _UAPI_LINUX_LRB_H

#include <asm/byteorder.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define LRB_PACKET_MAGIC	0xc1fc1fc1U

/**
 * struct lrb_packet_header - first bytes of each sub-buffer (CTF packet)
 * @magic: LRB_PACKET_MAGIC (the CTF magic number).
 * @stream_id: CTF stream class id, 0.
 * @stream_instance_id: the CPU, as CTF stream instance.
 * @timestamp_begin: timestamp of the first record.
 * @timestamp_end: timestamp taken when the sub-buffer was closed.
 * @content_size: bits of header and records.
 * @packet_size: bits of the packet: content_size rounded up to 8 bytes,
 *	so that packets copied one after another stay 8-aligned. A reader
 *	copies that much; the rest of the sub-buffer is padding too.
 * @packet_seq_num: sub-buffer number since the channel was created.
 * @events_discarded: records of this CPU lost before the packet was closed,
 *	all causes but overwriting (overwritten packets show as gaps in
 *	@packet_seq_num).
 * @cpu_id: the CPU.
 * @reserved: zero.
 *
 * Fields are in the byte order of the traced machine. timestamp_end,
 * content_size, packet_size and events_discarded are final once the
 * sub-buffer is delivered.
 */
struct lrb_packet_header {
	__u32 magic;
	__u32 stream_id;
	__u64 stream_instance_id;
	__u64 timestamp_begin;
	__u64 timestamp_end;
	__u64 content_size;
	__u64 packet_size;
	__u64 packet_seq_num;
	__u64 events_discarded;
	__u32 cpu_id;
	__u32 reserved;
};

#define LRB_RECORD_LEN_MAX	0xffffU

/*
 * The compact record header is one 32-bit word, unaligned: a 5-bit id
 * (LRB_HEADER_ID()) and the low 27 bits of the timestamp (LRB_HEADER_TS());
 * the bits above are those of the previous record of the packet, or of
 * timestamp_begin for the first, plus one where the low bits are below
 * that record's (the one wrap a CTF reader allows: the writer takes the
 * extended header after a gap of 2^27 ns, and may take it after a shorter
 * one, on 32-bit when the bits above change). The id is the first 5 bits
 * of the word as CTF packs bit fields: the low bits of the first byte on a
 * little-endian machine, the high bits on a big-endian one. Id
 * LRB_ID_EXTENDED there makes the header a struct lrb_record_header_ext.
 */
#define LRB_ID_BITS		5
#define LRB_TS_BITS		27
#define LRB_TS_MASK		((1U << LRB_TS_BITS) - 1)
#define LRB_ID_EXTENDED		31
#define LRB_HEADER_SIZE		4
#if defined(__BIG_ENDIAN_BITFIELD)
#define LRB_HEADER(id, ts)	((__u32)(id) << LRB_TS_BITS | ((__u32)(ts) & LRB_TS_MASK))
#define LRB_HEADER_ID(word)	((__u32)(word) >> LRB_TS_BITS)
#define LRB_HEADER_TS(word)	((__u32)(word) & LRB_TS_MASK)
#define LRB_HEADER_EXT_TAG	0xf8
#else
#define LRB_HEADER(id, ts)	((__u32)(id) | (__u32)(ts) << LRB_ID_BITS)
#define LRB_HEADER_ID(word)	((__u32)(word) & LRB_ID_EXTENDED)
#define LRB_HEADER_TS(word)	((__u32)(word) >> LRB_ID_BITS)
#define LRB_HEADER_EXT_TAG	0x1f
#endif

/**
 * struct lrb_record_header_ext - extended record header (13 bytes)
 * @tag: LRB_HEADER_EXT_TAG: the id bits of a compact header set to
 *	LRB_ID_EXTENDED, the other 3 bits zero.
 * @id: event id.
 * @ts: full timestamp.
 */
struct lrb_record_header_ext {
	__u8 tag;
	__u32 id;
	__u64 ts;
} __attribute__((packed));

/*
 * After the header, a __u16 of payload bytes, unaligned, unless the
 * record's id is below LRB_ID_EXTENDED and the channel gave it a fixed
 * length: its metadata then describes the event with a comment of
 * LRB_FIXED_LEN_TSDL followed by the length in decimal, and no _length
 * context. Nor is there one when the comment is LRB_LEN_AT_TSDL followed
 * by two decimals AT and BASE: the payload holds at byte AT a __u32,
 * unaligned, whose two 16-bit halves add up to the payload length plus
 * BASE (ftrace's __data_loc word of an entry's last dynamic field, where
 * the entry ends).
 */
#define LRB_LEN_SIZE		2
#define LRB_FIXED_LEN_TSDL	"/* lrb: fixed length "
#define LRB_LEN_AT_TSDL		"/* lrb: length at "

/**
 * struct lrb_stream_info - shape of a stream, from LRB_IOC_GET_INFO
 * @subbuf_size: bytes per sub-buffer (CTF packet).
 * @num_subbufs: sub-buffers in the CPU buffer.
 * @mmap_size: bytes of the CPU buffer, the most a mmap() may map.
 * @cpu: the CPU of the stream.
 * @mode: 0 discard, 1 overwrite.
 */
struct lrb_stream_info {
	__u64 subbuf_size;
	__u64 num_subbufs;
	__u64 mmap_size;
	__u32 cpu;
	__u32 mode;
};

/**
 * struct lrb_snapshot - window of a snapshot, from LRB_IOC_SNAPSHOT
 * @begin: position of the oldest sub-buffer that may hold data.
 * @end: position after the newest complete sub-buffer.
 *
 * Positions are free-running byte counts of the CPU buffer, 64-bit on
 * every architecture: a sub-buffer's is its packet_seq_num times the
 * sub-buffer size. The sub-buffers of the window are at @begin,
 * @begin + subbuf_size, ... up to @end, excluded.
 */
struct lrb_snapshot {
	__u64 begin;
	__u64 end;
};

/*
 * Stream file ioctls. A reader takes the oldest complete sub-buffer with
 * GET_SUBBUF (-EAGAIN if there is none, -EBUSY if one is already held),
 * reads it through mmap() at GET_MMAP_OFFSET, GET_SUBBUF_SIZE bytes of
 * content in a packet of GET_PADDED_SIZE bytes (the content rounded up to
 * 8 bytes: the packet_size of its header), and
 * gives it back with PUT_SUBBUF and the position GET_SUBBUF returned
 * (-EINVAL if none is held or the position differs; -EIO in overwrite
 * mode if a writer reused it meanwhile: what was read must be dropped).
 * FLUSH closes the partially filled sub-buffer of the stream's CPU so it
 * can be taken.
 */
#define LRB_IOC_MAGIC		0xB9
#define LRB_IOC_GET_SUBBUF	_IOR(LRB_IOC_MAGIC, 0x00, __u64)
#define LRB_IOC_PUT_SUBBUF	_IOW(LRB_IOC_MAGIC, 0x01, __u64)
#define LRB_IOC_GET_SUBBUF_SIZE	_IOR(LRB_IOC_MAGIC, 0x02, __u64)
#define LRB_IOC_GET_PADDED_SIZE	_IOR(LRB_IOC_MAGIC, 0x03, __u64)
#define LRB_IOC_GET_MMAP_OFFSET	_IOR(LRB_IOC_MAGIC, 0x04, __u64)
#define LRB_IOC_FLUSH		_IO(LRB_IOC_MAGIC, 0x05)
#define LRB_IOC_GET_INFO	_IOR(LRB_IOC_MAGIC, 0x06, struct lrb_stream_info)

/*
 * Snapshots (overwrite mode), read while writers go on and consuming
 * nothing: SNAPSHOT flushes the CPU and returns the window of complete
 * sub-buffers; GET_SUBBUF_AT holds the sub-buffer at a position of that
 * window (-EAGAIN: not complete yet, retry; -ESTALE: writers reused it);
 * it is read through mmap() as above and given back with PUT_SUBBUF,
 * which returns -ESTALE if writers reused it while it was read.
 */
#define LRB_IOC_SNAPSHOT	_IOR(LRB_IOC_MAGIC, 0x07, struct lrb_snapshot)
#define LRB_IOC_GET_SUBBUF_AT	_IOW(LRB_IOC_MAGIC, 0x08, __u64)

#endif /* _UAPI_LINUX_LRB_H */
