// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: completion queues, the rings the device reports to.
 *
 * Every RQ and SQ (en_rx.c, en_tx.c) gets its CQ from cxen_cq_create()
 * (memory, moderation and the CREATE_CQ command, undone as a whole on
 * failure) before it creates its queue in the device, and gives it back
 * with cxen_cq_destroy(); NAPI (en_irq.c) reaps the CQs and arms them
 * again. Reading a CQE is cxen_cqe_owned() in en.h.
 */
#include <linux/dma-mapping.h>
#include <linux/idr.h>

#include "en.h"

/**
 * cxen_cq_alloc() - allocate a CQ ring and a CQ number
 * @cdev: the device
 * @cq: the CQ; @cq->dbrec must already point at its doorbell record
 * @log_size: log2 of the number of CQEs
 *
 * Every CQE's owner bit starts set, so that nothing is owned by software
 * until the device writes the first pass (see cxen_cqe_owned()).
 *
 * Return: 0 or a negative errno.
 */
static int cxen_cq_alloc(struct cxen_dev *cdev, struct cxen_cq *cq, u8 log_size)
{
	size_t bytes = sizeof(struct cxen_cqe) << log_size;
	unsigned int i;
	int cqn;

	cqn = ida_alloc_max(&cdev->cqn_ida, CXEN_HW_NUM_CQ - 1, GFP_KERNEL);
	if (cqn < 0)
		return cqn;
	cq->cqes = dma_alloc_coherent(cdev->dev, bytes, &cq->ring_dma,
				      GFP_KERNEL);
	if (!cq->cqes) {
		ida_free(&cdev->cqn_ida, cqn);
		return -ENOMEM;
	}
	for (i = 0; i < (1U << log_size); i++)
		cq->cqes[i].owner_sr_opcode = CXEN_CQE_OWNER;
	cq->cqn = cqn;
	cq->log_size = log_size;
	cq->ci = 0;
	cxen_cq_update_ci(cq);
	return 0;
}

/**
 * cxen_cq_free() - free a CQ's ring and number
 * @cdev: the device
 * @cq: the CQ, destroyed in the device or never created there
 */
void cxen_cq_free(struct cxen_dev *cdev, struct cxen_cq *cq)
{
	dma_free_coherent(cdev->dev, sizeof(struct cxen_cqe) << cq->log_size,
			  cq->cqes, cq->ring_dma);
	ida_free(&cdev->cqn_ida, cq->cqn);
	cq->cqes = NULL;
}

/**
 * cxen_cq_create() - a CQ on a channel's vector, in memory and in the device
 * @ch: the channel; @cq->dbrec points into its doorbell record page
 * @cq: the CQ
 * @log_size: log2 of the number of CQEs
 * @usecs: its interrupt moderation time
 * @frames: its interrupt moderation count
 *
 * Return: 0, or a negative errno with nothing left allocated.
 */
int cxen_cq_create(struct cxen_channel *ch, struct cxen_cq *cq, u8 log_size,
		   u16 usecs, u16 frames)
{
	struct cxen_dev *cdev = ch->priv->cdev;
	dma_addr_t dbrec;
	int err;

	dbrec = ch->dbrec_dma + ((void *)cq->dbrec - ch->dbrec_page);
	err = cxen_cq_alloc(cdev, cq, log_size);
	if (err)
		return err;
	cq->moder_usecs = usecs;
	cq->moder_frames = frames;
	err = cxen_cmd_create_cq(cdev, cq, dbrec, ch->vector);
	if (err)
		cxen_cq_free(cdev, cq);
	return err;
}

/**
 * cxen_cq_destroy() - undo cxen_cq_create()
 * @cdev: the device
 * @cq: the CQ; no queue reports to it any more
 *
 * Return: true, or false when the device did not give the CQ back
 * (DESTROY_CQ failed): it may still write CQEs, so the ring stays
 * allocated.
 */
bool cxen_cq_destroy(struct cxen_dev *cdev, struct cxen_cq *cq)
{
	if (cxen_hw_release(cdev, CXEN_CMD_DESTROY_CQ, cq->cqn, cq->hw_gen))
		return false;
	cxen_cq_free(cdev, cq);
	return true;
}

/**
 * cxen_cq_arm() - ask for one interrupt on the next CQE
 * @cdev: the device
 * @cq: the CQ, whose consumer index is already published
 */
void cxen_cq_arm(struct cxen_dev *cdev, struct cxen_cq *cq)
{
	cxen_cq_update_ci(cq);
	/* The device must see the consumer index before the arm request. */
	wmb();
	cxen_wr32(cdev, CXEN_REG_CQ_ARM, FIELD_PREP(CXEN_CQ_ARM_CQN, cq->cqn));
}
