export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True"
 
vllm serve deepseek-ai/DeepSeek-V3 \
    --trust-remote-code \
    --host 0.0.0.0 --port $PORT \
    --gpu-memory-utilization 0.98 \
    --max-model-len 128 \
    --tensor-parallel-size 8 --pipeline-parallel-size 4 --enforce-eager
