
Lmod is automatically replacing "intel/24.0" with "gcc/13.2.0".

W1207 11:02:10.118000 2254101 torch/distributed/run.py:793] 
W1207 11:02:10.118000 2254101 torch/distributed/run.py:793] *****************************************
W1207 11:02:10.118000 2254101 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. 
W1207 11:02:10.118000 2254101 torch/distributed/run.py:793] *****************************************
[rank2]: Traceback (most recent call last):
[rank2]:   File "/work2/11095/u/weather/train.py", line 412, in <module>
[rank2]:     trainer.train()
[rank2]:   File "/work2/11095/u/weather/train.py", line 301, in train
[rank2]:     loss.backward()
[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.20 GiB. GPU 2 has a total capacity of 93.11 GiB of which 2.05 GiB is free. Including non-PyTorch memory, this process has 91.04 GiB memory in use. Of the allocated memory 86.20 GiB is allocated by PyTorch, and 3.91 GiB is reserved by PyTorch but unallocated.
W1207 11:19:44.511000 2254101 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2254118 closing signal SIGTERM
W1207 11:19:44.512000 2254101 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2254119 closing signal SIGTERM
W1207 11:19:44.512000 2254101 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2254121 closing signal SIGTERM
E1207 11:19:45.201000 2254101 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 2 (pid: 2254120) of binary: /work2/11095/u/venv/bin/python
Traceback (most recent call last):
  File "/work2/11095/u/venv/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-12-07_11:19:44
  host      : c561-007.stampede3.tacc.utexas.edu
  rank      : 2 (local_rank: 2)
  exitcode  : 1 (pid: 2254120)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
