MOONCAKE_TE_META_DATA_SERVER="http://mooncake_master:8080/metadata" \
MOONCAKE_MASTER="mooncake_master:50051" \
MOONCAKE_PROTOCOL="rdma" \
MOONCAKE_DEVICE="mlx5_0" \
MOONCAKE_GLOBAL_SEGMENT_SIZE="384gb" \
python -m sglang.launch_server \
    --enable-hierarchical-cache \
    --hicache-storage-backend mooncake \
    --hicache-io-backend direct \
    --hicache-mem-layout page_first_direct \
    --hicache-write-policy write_through \
    --model /models/Qwen3.5-397B-A17B-FP8 \
    --enable-metrics \
    --log-level-http=warning \
    --host 0.0.0.0 \
    --port 8000 \
    --tp=8 \
    --kv-cache-dtype fp8_e4m3 \
    --mamba-scheduler-strategy extra_buffer \
    --page-size 64 \
    --tool-call-parser=qwen3_coder \
    --speculative-algorithm=EAGLE \
    --speculative-num-steps=3 \
    --speculative-eagle-topk=1 \
    --speculative-num-draft-tokens=4 \
    --enable-flashinfer-allreduce-fusion \
    --mem-fraction-static=0.8 \
    --model-loader-extra-config='{"enable_multithread_load":"true","num_threads":64}' \
    --enable-cache-report
