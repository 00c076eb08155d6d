/*
 * jni_baseline.c - the legacy baseline for bench/native-datapath: the three data-path natives of DiSNI's
 * NativeDispatcher (libdisni's verbs part, v2.1), reduced to what the benchmark calls. As in DiSNI, every
 * handle crosses JNI as a jlong holding the raw C pointer, the work-request list is a native buffer the
 * Java side serialized once (SVCPostSend/SVCPostRecv) and passes by address, and a failed post throws
 * IOException from native code. They call the provider through the inline verbs.h functions, i.e.
 * through ctx->ops, exactly as libdisni does. Built by bench/native-datapath with
 *   gcc -O2 -fPIC -shared -I$JAVA_HOME/include -I$JAVA_HOME/include/linux -o libpvjnibaseline.so jni_baseline.c
 */
#include <jni.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

static void throw_io(JNIEnv *env, const char *call, int ret)
{
	char message[128];
	snprintf(message, sizeof(message), "j2c::%s: %s failed: %s", call, call, strerror(ret));
	jclass io = (*env)->FindClass(env, "java/io/IOException");
	if (io)
		(*env)->ThrowNew(env, io, message);
}

JNIEXPORT jint JNICALL Java_org_panamaverbs_bench_jni_DisniDispatcher__1postSend(JNIEnv *env, jobject self, jlong qp,
										  jlong wrList)
{
	(void)self;
	struct ibv_qp *queuepair = (struct ibv_qp *)(uintptr_t)qp;
	struct ibv_send_wr *wr = (struct ibv_send_wr *)(uintptr_t)wrList;
	struct ibv_send_wr *bad_wr = NULL;
	int ret = 0;
	if (queuepair != NULL && wr != NULL) {
		ret = ibv_post_send(queuepair, wr, &bad_wr);
		if (ret != 0)
			throw_io(env, "ibv_post_send", ret);
	}
	return ret;
}

JNIEXPORT jint JNICALL Java_org_panamaverbs_bench_jni_DisniDispatcher__1postRecv(JNIEnv *env, jobject self, jlong qp,
										  jlong wrList)
{
	(void)self;
	struct ibv_qp *queuepair = (struct ibv_qp *)(uintptr_t)qp;
	struct ibv_recv_wr *wr = (struct ibv_recv_wr *)(uintptr_t)wrList;
	struct ibv_recv_wr *bad_wr = NULL;
	int ret = 0;
	if (queuepair != NULL && wr != NULL) {
		ret = ibv_post_recv(queuepair, wr, &bad_wr);
		if (ret != 0)
			throw_io(env, "ibv_post_recv", ret);
	}
	return ret;
}

JNIEXPORT jint JNICALL Java_org_panamaverbs_bench_jni_DisniDispatcher__1pollCQ(JNIEnv *env, jobject self, jlong cq,
										jint ne, jlong wcList)
{
	(void)env;
	(void)self;
	struct ibv_cq *completionqueue = (struct ibv_cq *)(uintptr_t)cq;
	struct ibv_wc *wc = (struct ibv_wc *)(uintptr_t)wcList;
	if (completionqueue == NULL || wc == NULL)
		return -1;
	return ibv_poll_cq(completionqueue, ne, wc);
}
