#!/bin/bash
#PBS -P wb00
#PBS -q gpuvolta
#PBS -l ngpus=32,ncpus=384,mem=3040GB,walltime=06:00:00,jobfs=100MB
#PBS -l storage=scratch/wb00+gdata/wb00
#PBS -l wd

module load intel-mpi/2021.10.0 pytorch/2.5.1
export NCCL_DEBUG=INFO
export TORCH_NCCL_ASYNC_ERROR_HANDLING=1
export MASTER_ADDR=$(head -n1 $PBS_NODEFILE)

mpirun -np 32 -ppn 4 -l -genv I_MPI_PIN_DOMAIN=socket \
    python3 train_ddp.py --config configs/gpt-neox-1.3b.yaml --global-batch 4096 --ckpt-dir /scratch/wb00/hkim/dl/checkpoints --dist-timeout-min 30

