/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen: every software counter of a port, one line each, in the order
 * ethtool -S shows them. Tests and tools parse that order: never rename,
 * remove or reorder a line. Adding a counter is adding a line here, its
 * u64_stats_inc() where it is counted, and its row in
 * Documentation/cxen.rst; the rest is derived (en_stats.h, en_stats.c).
 *
 * A line is SCOPE(name, field, qstat, stats64):
 *
 * name     the ethtool -S string, and the total's field in struct
 *          cxen_stats_base.
 * SCOPE    where the counter lives, @field naming it there:
 *   CXEN_RQ       u64_stats_t of struct cxen_rq_stats (NAPI);
 *   CXEN_POOL     no counter of the driver's: the total is read from the
 *                 port's page pools (page_pool_get_stats()) when ethtool
 *                 asks, @field naming what cxen_pool_stats() takes; 0 on
 *                 a kernel without CONFIG_PAGE_POOL_STATS;
 *   CXEN_SQ       u64_stats_t of struct cxen_sq_stats (xmit, under the
 *                 TX queue lock; an XDP SQ's, under its xdp_lock);
 *   CXEN_SQC      u64_stats_t of struct cxen_sq_cstats (the SQ's
 *                 completions, NAPI);
 *   CXEN_PORT     atomic64_t of struct cxen_port_stats: rare events
 *                 outside the data path.
 * qstat    QRX(f) / QTX(f): the total is field f of the netdev queue
 *          stats (struct netdev_queue_stats_rx / _tx); 0: none.
 * stats64  S64(f) | ...: the total is added to those fields of struct
 *          rtnl_link_stats64 (ndo_get_stats64); 0: none.
 *
 * No include guard: a user defines the SCOPE macros it needs (the others
 * expand to nothing), then includes this file, which undefines them all
 * at its end (an X-macro list, as include/linux/bpf_types.h).
 */
#ifndef CXEN_RQ
#define CXEN_RQ(...)
#endif
#ifndef CXEN_POOL
#define CXEN_POOL(...)
#endif
#ifndef CXEN_SQ
#define CXEN_SQ(...)
#endif
#ifndef CXEN_SQC
#define CXEN_SQC(...)
#endif
#ifndef CXEN_PORT
#define CXEN_PORT(...)
#endif

CXEN_RQ(rx_packets,		packets,	QRX(packets),	S64(rx_packets))
CXEN_RQ(rx_bytes,		bytes,		QRX(bytes),	S64(rx_bytes))
CXEN_SQC(tx_packets,		packets,	QTX(packets),	S64(tx_packets))
CXEN_SQC(tx_bytes,		bytes,		QTX(bytes),	S64(tx_bytes))
CXEN_RQ(rx_csum_unnecessary,	csum_unnecessary, QRX(csum_unnecessary), 0)
CXEN_RQ(rx_csum_none,		csum_none,	QRX(csum_none),	0)
/* packets GRO handed up (merged or not), the wire frames they carried */
CXEN_RQ(rx_gro_packets,		gro_packets,	0,		0)
CXEN_RQ(rx_gro_segs,		gro_segs,	0,		0)
CXEN_RQ(rx_truesize_bytes,	truesize_bytes,	0,		0)
CXEN_RQ(rx_copybreak,		copybreak,	0,		0)
CXEN_RQ(rx_alloc_fail,		alloc_fail,	QRX(alloc_fail), 0)
/*
 * Pages the driver itself took from the page allocator (the comparison
 * layouts; the default layout's page_pool takes its own, which only the
 * pool's tracepoints count exactly). Pages returned to the page_pool for
 * reuse, and those it gave back to the page allocator, by the pool's own
 * statistics.
 */
CXEN_RQ(rx_page_alloc,		page_alloc,	0,		0)
CXEN_POOL(rx_page_recycle,	recycle,	0,		0)
CXEN_POOL(rx_page_release,	release,	0,		0)
/* DMA mappings the driver made (the pool maps its pages itself) */
CXEN_RQ(rx_dma_map,		dma_map,	0,		0)
/* pages the ring began carving, from the pool or the page allocator */
CXEN_RQ(rx_page_start,		pages_started,	0,		0)
/* bad frames (include/uapi/linux/if_link.h): errors, not drops */
CXEN_RQ(rx_err_cqe,		err_cqe,	QRX(hw_drops),	S64(rx_errors))
/* CQE length over the posted buffer */
CXEN_RQ(rx_oversize,		oversize,	0,
	S64(rx_errors) | S64(rx_length_errors))
/* implausible CQE: index, qpn, opcode */
CXEN_RQ(rx_bad_cqe,		bad_cqe,	0,		S64(rx_errors))
/* WQEs an RQ in the error state gave back unused (no frame lost) */
CXEN_RQ(rx_flush_cqe,		flush_cqe,	0,		0)
CXEN_SQ(tx_doorbell,		doorbell,	0,		0)
/* LSO WQEs and the payload bytes they carried */
CXEN_SQ(tx_tso_packets,		tso_packets,	QTX(hw_gso_packets), 0)
CXEN_SQ(tx_tso_bytes,		tso_bytes,	QTX(hw_gso_bytes), 0)
CXEN_SQ(tx_csum_offload,	csum_offload,	QTX(needs_csum), 0)
CXEN_SQ(tx_inline,		inline_pkts,	0,		0)
CXEN_SQ(tx_linearize,		linearize,	0,		0)
/* of tx_dropped: a packet that could not be mapped */
CXEN_SQ(tx_dma_map_err,		dma_map_err,	0,		0)
CXEN_SQ(tx_queue_stop,		queue_stop,	QTX(stop),	0)
CXEN_SQC(tx_queue_wake,		queue_wake,	QTX(wake),	0)
CXEN_SQC(tx_err_cqe,		err_cqe,	QTX(hw_drops),	S64(tx_errors))
CXEN_SQ(tx_dropped,		dropped,	0,		S64(tx_dropped))
CXEN_PORT(tx_timeout,		tx_timeouts,	0,		0)
CXEN_PORT(tx_hang,		tx_hangs,	0,		0)
CXEN_PORT(tx_recover,		tx_recovers,	0,		0)
/* RQs reset in place after the device put them in error */
CXEN_PORT(rx_recover,		rx_recovers,	0,		0)
/* RX queues rebuilt one at a time, the others running (en_queue.c) */
CXEN_PORT(rx_queue_restart,	rx_queue_restarts, 0,		0)
/* resets of an SQ or RQ that failed: the queue stays stopped */
CXEN_PORT(recover_fail,		recover_fails,	0,		0)
/* of rx_alloc_fail: frames dropped for want of an skb (not buffers) */
CXEN_RQ(rx_skb_alloc_fail,	skb_alloc_fail,	0,		S64(rx_dropped))
/*
 * XDP (Documentation/xdp.rst): each frame the RQ's program ran on, in one
 * of the five by what became of it: passed up; dropped (XDP_DROP, and an
 * XDP_TX or XDP_REDIRECT that could not be done); sent back out (XDP_TX,
 * queued on the channel's XDP SQ); redirected; aborted (XDP_ABORTED or a
 * verdict the kernel does not know).
 */
CXEN_RQ(rx_xdp_pass,		xdp_pass,	0,		0)
CXEN_RQ(rx_xdp_drop,		xdp_drop,	0,		0)
CXEN_RQ(rx_xdp_tx,		xdp_tx,		0,		0)
CXEN_RQ(rx_xdp_redirect,	xdp_redirect,	0,		0)
CXEN_RQ(rx_xdp_aborted,		xdp_aborted,	0,		0)
/* frames ndo_xdp_xmit queued on the XDP SQs (cxen as a redirect target) */
CXEN_SQ(tx_xdp_xmit,		xdp_xmit,	0,		0)
/* frames, XDP_TX or ndo_xdp_xmit, that found no room on the XDP SQ */
CXEN_SQ(tx_xdp_full,		xdp_full,	0,		0)
/* doorbells of the XDP SQs: one per NAPI poll or XDP_XMIT_FLUSH at most */
CXEN_SQ(xdp_tx_doorbell,	xdp_doorbell,	0,		0)
/*
 * Striding RQ (Documentation/rx-buffers.rst): CQEs cxen_stride_account()
 * refused, one counter per verdict; each CQE's frame is dropped, and the
 * strides the device consumed under it are dropped at the next CQE
 * accepted (rx_stride_drop).
 */
CXEN_RQ(rx_stride_bad_wqe,	stride_bad_wqe,	0,		S64(rx_errors))
CXEN_RQ(rx_stride_bad_range,	stride_bad_range, 0,		S64(rx_errors))
CXEN_RQ(rx_stride_reused,	stride_reused,	0,		S64(rx_errors))
CXEN_RQ(rx_stride_bad_first,	stride_bad_first, 0,		S64(rx_errors))
CXEN_RQ(rx_stride_bad_count,	stride_bad_count, 0,		S64(rx_errors))
CXEN_RQ(rx_stride_bad_last,	stride_bad_last, 0,		S64(rx_errors))
CXEN_RQ(rx_stride_bad_filler,	stride_bad_filler, 0,		S64(rx_errors))
/* filler CQEs (the unused tail of a WQE), strides dropped unused */
CXEN_RQ(rx_stride_filler,	stride_filler,	0,		0)
CXEN_RQ(rx_stride_drop,		stride_drop,	0,		0)
/* striding WQEs the driver posted and retired */
CXEN_RQ(rx_stride_wqe_post,	stride_wqe_post, 0,		0)
CXEN_RQ(rx_stride_wqe_retire,	stride_wqe_retire, 0,		0)
/* bytes of strides charged to skbs as truesize (frames not copied) */
CXEN_RQ(rx_stride_truesize,	stride_truesize, 0,		0)
/*
 * Header/data split: frames received with their headers in a header
 * buffer; split CQEs refused for a header length cxen_hdr_split_ok()
 * refuses or a header index other than the driver's count (frame dropped)
 */
CXEN_RQ(rx_hdr_split,		hdr_split,	0,		0)
CXEN_RQ(rx_hdr_bad_len,		hdr_bad_len,	0,		S64(rx_errors))
CXEN_RQ(rx_hdr_bad_index,	hdr_bad_index,	0,		S64(rx_errors))
/*
 * LRO (ethtool -K lro on): frames the device merged from TCP segments
 * (rx_packets counts the segments), their bytes; merged frames whose
 * CQE or headers do not hold up (segment count, TCP over IP, lengths):
 * dropped
 */
CXEN_RQ(rx_lro_packets,		lro_packets,	0,		0)
CXEN_RQ(rx_lro_bytes,		lro_bytes,	0,		0)
CXEN_RQ(rx_lro_bad,		lro_bad,	0,		S64(rx_errors))

#undef CXEN_RQ
#undef CXEN_POOL
#undef CXEN_SQ
#undef CXEN_SQC
#undef CXEN_PORT
