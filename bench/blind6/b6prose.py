"""What users write around their pastes, in several languages."""

MODELS = ["a 7B llama-style model", "Llama-3-8B", "a 1.3B GPT", "Mixtral 8x7B", "ViT-H/14", "a 13B decoder", "BERT-large",
          "a diffusion UNet", "Qwen2-7B", "a 70B model with FSDP", "T5-XL", "our internal 3B LM", "nanoGPT (124M)",
          "a 34B code model", "Whisper large-v3", "a MoE model"]

LAUNCH = {
    "torchrun": ["torchrun --nnodes={N} --nproc_per_node={G}", "torchrun (c10d rendezvous)", "plain torchrun"],
    "slurm_srun": ["sbatch + srun, one task per GPU", "srun -l python {script}", "Slurm (srun, {N} nodes)"],
    "slurm_torchrun": ["sbatch + `srun torchrun`", "srun launching torchrun on each node", "Slurm + torchrun"],
    "deepspeed": ["the deepspeed launcher with a hostfile", "deepspeed --hostfile hostfile {script}", "DeepSpeed ZeRO-3"],
    "mpirun": ["mpirun (Open MPI 4.1)", "mpirun -np {W} --tag-output", "horovodrun / mpirun"],
    "sagemaker": ["SageMaker training job (ml.p4d.24xlarge x{N})", "SageMaker with smddp", "a SageMaker estimator"],
    "k8s": ["a Kubeflow PyTorchJob", "JobSet on GKE", "the training-operator PyTorchJob", "Volcano job on k8s"],
    "accelerate": ["accelerate launch --multi_gpu", "accelerate launch (FSDP config)", "HF accelerate"],
    "ray": ["Ray Train TorchTrainer", "ray job submit + TorchTrainer", "Ray on KubeRay"],
    "azureml": ["an Azure ML command job (PyTorch distribution)", "AzureML with process_count_per_instance={G}"],
}

L10N = {
    "en": {
        "hello": ["Hi all,", "Hello,", "Hey folks,", "Hi team,", "", "Hi!", "Good morning,"],
        "intro": [
            "I'm training {model} with {launcher} on {N} node(s) x {G} GPUs ({gpu}). After {dur} the job dies with the error below. Any idea what is going on?",
            "Our multi-node job ({N} nodes, {W} ranks) crashed again tonight after {dur}. Same code worked last week.",
            "Training {model} ({launcher}) fails after {dur}. I have no idea whether it is our code, NCCL or the cluster.",
            "We keep seeing this on our cluster when running {model} on {W} GPUs. Logs below.",
            "Job crashed after {dur}. {launcher}, {N} nodes. Posting what I have.",
            "Not sure where to ask this, but our {W}-GPU run of {model} stops after {dur}.",
        ],
        "intro_healthy": [
            "My run of {model} on {W} GPUs finished, but the log is full of scary messages. Should I worry about these?",
            "Training completes but I see these warnings/errors in the output, are they a problem?",
            "The job seems fine (loss goes down, it finished), but our monitoring flagged the lines below. Is something broken?",
        ],
        "intro_slow": [
            "Our {W}-GPU job of {model} got much slower after {dur} (tokens/s dropped a lot) but it does not crash. What could cause this?",
            "Throughput is way down compared to last week with the same config ({launcher}, {N} nodes). Logs below.",
        ],
        "piece": {
            "console": ["Here is the output:", "Full output:", "Output of the job:", "Log:", "This is what the launcher printed:",
                        "the job output (slurm-{jobid}.out):"],
            "console_node": ["Output on {host}:", "here is node {k} ({host}):", "{host}:", "this is the log from {host}:"],
            "console_pod": ["kubectl logs {host}:", "logs of pod {host}:", "`kubectl logs {host}` says:"],
            "rankfile": ["Here is rank {r}:", "log of rank {r}:", "rank {r} ({host}) shows:", "rank{r}.log:", "and rank {r}:"],
            "summary": ["and the end of the output:", "the last lines:", "launcher summary:", "at the very end it says:"],
            "kernel": ["dmesg on {host} shows:", "I asked the admins, the kernel log of {host} has:", "journalctl -k on {host}:",
                       "dmesg -T on {host} around that time:", "`dmesg` from {host}:"],
            "smi": ["nvidia-smi on {host} after the crash:", "{host} nvidia-smi:", "after the job died, on {host}:"],
            "analysis": ["I enabled the flight recorder and ran the analyzer:", "py-spy dump while it was stuck:", "analysis:",
                         "dump:"],
            "k8s": ["kubectl:", "pod status:", "events:"],
            "tails": ["tail of every rank's log:", "`tail -n 40 logs/*` gives:", "last lines of each rank file:"],
            "misc": ["also:", "and this:", "{host}:"],
        },
        "same": ["(the same for the other ranks)", "same error on all nodes", "(every other rank prints the same timeout)",
                 "... the other ranks show the same ...", "(repeated for ranks 1-{last})"],
        "theory": ["I suspect an NCCL bug.", "Could this be a PyTorch regression?", "Is this a network problem?",
                   "It works fine on a single node.", "We already tried NCCL_IB_DISABLE=1, no change.",
                   "Setting NCCL_P2P_DISABLE=1 did not help.", "Any pointers appreciated!", "Thanks in advance.",
                   "Could it be the dataloader?", "Increasing the timeout did not help."],
        "attached": ["Full logs attached.", "I attached the complete logs.", "Attaching the rank logs."],
        "env": ["Environment:", "Versions:", "collect_env:"],
        "snip": ["...", "[truncated]", "<snip>", "... {n} more lines ...", "(cut)", "[... {n} lines removed ...]"],
        "last_attempt": ["Then I reduced the batch size and resubmitted; this is the new failure:", "Second attempt:",
                         "after the restart it failed like this:", "Latest run:"],
        "last_attempt_ok": ["After fixing that, the rerun went through to the end, but it prints this:",
                            "The latest run finished, but look at this:", "Latest run (finished):"],
        "first_is_real": ["(the second run I cancelled myself, the first one is the real problem)",
                          "Please ignore the second log, that was me killing it; the first one is what I need help with."],
    },
    "zh": {
        "hello": ["大家好，", "请教一下，", "各位好，", ""],
        "intro": ["我在 {N} 台机器（每台 {G} 张 {gpu}）上用 {launcher} 训练 {model}，跑了 {dur} 之后报错，日志如下：",
                  "多机训练跑了 {dur} 就挂了，{W} 张卡，求助！", "训练 {model} 时出现下面的错误，不知道是代码问题还是集群问题："],
        "intro_healthy": ["训练正常跑完了，但是日志里有很多报错，需要担心吗？"],
        "intro_slow": ["训练跑了 {dur} 之后速度明显变慢了（吞吐掉了一半），但是没有报错，这是什么原因？"],
        "piece": {"console": ["完整输出：", "日志："], "console_node": ["{host} 上的输出：", "节点 {k}（{host}）："],
                  "rankfile": ["rank {r} 的日志：", "rank {r}："], "summary": ["最后的输出："],
                  "kernel": ["{host} 的 dmesg 显示：", "管理员给的 {host} 内核日志："], "smi": ["挂掉之后 {host} 上的 nvidia-smi："],
                  "analysis": ["py-spy / flight recorder 的结果："], "k8s": ["kubectl 输出："], "tails": ["每个 rank 日志的最后几行："],
                  "misc": ["另外："]},
        "same": ["（其他 rank 都一样）", "其他节点也是同样的错误"],
        "theory": ["是不是 NCCL 的问题？", "单机跑没问题。", "已经试过 NCCL_IB_DISABLE=1，没用。", "谢谢！"],
        "attached": ["完整日志见附件。"], "env": ["环境："], "snip": ["...", "（省略）", "......"],
        "last_attempt": ["调小 batch size 之后重新跑，又报了下面的错："], "first_is_real": ["（第二次是我自己 kill 的，主要看第一次）"],
    },
    "ru": {
        "hello": ["Всем привет!", "Привет.", ""],
        "intro": ["Обучаю {model} на {N} узлах по {G} GPU ({launcher}). Через {dur} всё падает вот с такой ошибкой:",
                  "Многоузловое обучение ({W} GPU) падает через {dur}. Логи ниже."],
        "intro_healthy": ["Обучение завершилось, но в логе куча страшных сообщений. Это проблема?"],
        "intro_slow": ["Через {dur} обучение сильно замедлилось, но не падает. В чём может быть дело?"],
        "piece": {"console": ["Вывод:", "Лог:"], "console_node": ["Вывод на {host}:", "узел {k} ({host}):"],
                  "rankfile": ["лог rank {r}:", "rank {r}:"], "summary": ["в конце:"],
                  "kernel": ["dmesg на {host} показывает:", "админы прислали лог ядра с {host}:"],
                  "smi": ["nvidia-smi на {host} после падения:"], "analysis": ["дамп:"], "k8s": ["kubectl:"],
                  "tails": ["хвосты логов всех рангов:"], "misc": ["ещё:"]},
        "same": ["(на остальных рангах то же самое)", "на всех нодах одно и то же"],
        "theory": ["Похоже на баг NCCL?", "На одной ноде всё работает.", "Спасибо!"],
        "attached": ["Полные логи во вложении."], "env": ["Окружение:"], "snip": ["...", "[обрезано]"],
        "last_attempt": ["Уменьшил batch size, перезапустил — теперь так:"], "first_is_real": ["(второй запуск я убил сам, важен первый)"],
    },
    "de": {
        "hello": ["Hallo zusammen,", "Hallo,", ""],
        "intro": ["unser Training von {model} auf {N} Knoten ({launcher}) bricht nach {dur} mit folgendem Fehler ab:",
                  "Der Job ({W} GPUs) stirbt nach {dur}. Hat jemand eine Idee?"],
        "intro_healthy": ["Das Training läuft durch, aber im Log stehen viele Fehlermeldungen. Muss ich mir Sorgen machen?"],
        "intro_slow": ["Nach {dur} ist das Training deutlich langsamer geworden, stürzt aber nicht ab. Woran kann das liegen?"],
        "piece": {"console": ["Ausgabe:", "Hier das Log:"], "console_node": ["Ausgabe auf {host}:", "Knoten {k} ({host}):"],
                  "rankfile": ["Hier die Ausgabe von Rank {r}:", "Rank {r}:"], "summary": ["Am Ende steht:"],
                  "kernel": ["dmesg auf {host} zeigt:", "Kernel-Log von {host}:"], "smi": ["nvidia-smi auf {host} nach dem Absturz:"],
                  "analysis": ["Dump:"], "k8s": ["kubectl:"], "tails": ["Ende aller Rank-Logs:"], "misc": ["Außerdem:"]},
        "same": ["(auf den anderen Ranks das Gleiche)", "Auf den anderen Knoten das Gleiche."],
        "theory": ["Ist das ein NCCL-Bug?", "Auf einem Knoten läuft es.", "Danke!"],
        "attached": ["Komplette Logs im Anhang."], "env": ["Umgebung:"], "snip": ["...", "[gekürzt]"],
        "last_attempt": ["Mit kleinerer Batch Size neu gestartet, jetzt das:"], "first_is_real": ["(den zweiten Lauf habe ich selbst abgebrochen, relevant ist der erste)"],
    },
    "es": {
        "hello": ["Hola,", "Buenas,", ""],
        "intro": ["estoy entrenando {model} en {N} nodos ({launcher}) y después de {dur} falla con este error:",
                  "El entrenamiento con {W} GPUs se cae después de {dur}. Adjunto logs."],
        "intro_healthy": ["El entrenamiento termina bien pero el log tiene muchos errores, ¿es un problema?"],
        "intro_slow": ["Después de {dur} el entrenamiento va mucho más lento pero no falla. ¿Qué puede ser?"],
        "piece": {"console": ["Salida:", "Log:"], "console_node": ["salida en {host}:", "nodo {k} ({host}):"],
                  "rankfile": ["log del rank {r}:", "rank {r}:"], "summary": ["al final dice:"],
                  "kernel": ["dmesg en {host} muestra:"], "smi": ["nvidia-smi en {host} después del fallo:"],
                  "analysis": ["dump:"], "k8s": ["kubectl:"], "tails": ["final de cada log:"], "misc": ["también:"]},
        "same": ["(lo mismo en los demás ranks)", "lo mismo en todos los nodos"],
        "theory": ["¿Será un bug de NCCL?", "En un solo nodo funciona.", "¡Gracias!"],
        "attached": ["Adjunto los logs completos."], "env": ["Entorno:"], "snip": ["...", "[recortado]"],
        "last_attempt": ["Bajé el batch size y relancé, ahora falla así:"], "first_is_real": ["(la segunda ejecución la maté yo, la importante es la primera)"],
    },
    "ja": {
        "hello": ["お世話になっております。", ""],
        "intro": ["{N}ノード（{launcher}）で{model}を学習しているのですが、{dur}ほどで以下のエラーで落ちます。",
                  "{W} GPU での学習が {dur} 後に止まります。ログを貼ります。"],
        "intro_healthy": ["学習は最後まで終わるのですが、ログに怖いメッセージが出ています。問題ありますか？"],
        "intro_slow": ["{dur} 後から学習が極端に遅くなりました（落ちはしません）。原因は何でしょうか。"],
        "piece": {"console": ["出力:", "ログ:"], "console_node": ["{host} の出力:", "ノード{k}（{host}）:"],
                  "rankfile": ["rank {r} のログ:"], "summary": ["最後の出力:"], "kernel": ["{host} の dmesg の出力:"],
                  "smi": ["落ちた後の {host} の nvidia-smi:"], "analysis": ["ダンプ:"], "k8s": ["kubectl:"],
                  "tails": ["各 rank のログ末尾:"], "misc": ["あと:"]},
        "same": ["（他の rank も同じ）", "他のノードも同じエラーです"],
        "theory": ["NCCL のバグでしょうか？", "1ノードでは動きます。", "よろしくお願いします。"],
        "attached": ["ログ全体を添付します。"], "env": ["環境:"], "snip": ["...", "（省略）"],
        "last_attempt": ["バッチサイズを下げて再実行したら今度はこうなりました:"], "first_is_real": ["（2回目は自分で止めたので、1回目を見てください）"],
    },
    "pt": {
        "hello": ["Olá,", "Oi pessoal,", ""],
        "intro": ["estou treinando {model} em {N} nós ({launcher}) e depois de {dur} dá esse erro:"],
        "intro_healthy": ["O treino termina normalmente, mas aparecem esses erros no log. É problema?"],
        "intro_slow": ["Depois de {dur} o treino ficou bem mais lento, mas não cai. O que pode ser?"],
        "piece": {"console": ["Saída:"], "console_node": ["saída em {host}:"], "rankfile": ["log do rank {r}:"],
                  "summary": ["no final:"], "kernel": ["o dmesg em {host} mostra:"], "smi": ["nvidia-smi em {host} depois da falha:"],
                  "analysis": ["dump:"], "k8s": ["kubectl:"], "tails": ["final de cada log:"], "misc": ["também:"]},
        "same": ["(mesmo erro em todos os nós)"], "theory": ["Será bug do NCCL?", "Valeu!"],
        "attached": ["Logs completos em anexo."], "env": ["Ambiente:"], "snip": ["...", "[cortado]"],
        "last_attempt": ["Diminuí o batch size e rodei de novo:"], "first_is_real": ["(a segunda execução eu matei, a importante é a primeira)"],
    },
    "ko": {
        "hello": ["안녕하세요.", ""],
        "intro": ["{N}개 노드({launcher})에서 {model} 학습 중인데 {dur} 후에 아래 에러로 죽습니다."],
        "intro_healthy": ["학습은 끝까지 되는데 로그에 에러가 많이 보입니다. 문제가 있는 건가요?"],
        "intro_slow": ["{dur} 이후로 학습 속도가 크게 느려졌습니다. 죽지는 않습니다."],
        "piece": {"console": ["출력:"], "console_node": ["{host} 출력:"], "rankfile": ["rank {r} 로그:"], "summary": ["마지막 출력:"],
                  "kernel": ["{host} dmesg 결과:"], "smi": ["{host} nvidia-smi:"], "analysis": ["덤프:"], "k8s": ["kubectl:"],
                  "tails": ["각 rank 로그 마지막 부분:"], "misc": ["그리고:"]},
        "same": ["(다른 노드도 같은 에러입니다)"], "theory": ["NCCL 문제일까요?", "감사합니다."],
        "attached": ["전체 로그 첨부합니다."], "env": ["환경:"], "snip": ["...", "(생략)"],
        "last_attempt": ["배치 사이즈를 줄이고 다시 돌렸더니:"], "first_is_real": ["(두 번째는 제가 직접 죽인 것이고 첫 번째가 진짜 문제입니다)"],
    },
    "fr": {
        "hello": ["Bonjour,", "Salut à tous,", ""],
        "intro": ["notre entraînement de {model} sur {N} nœuds ({launcher}) plante après {dur} avec l'erreur suivante :"],
        "intro_healthy": ["L'entraînement se termine mais le log contient beaucoup d'erreurs. Est-ce grave ?"],
        "intro_slow": ["Après {dur} l'entraînement est devenu beaucoup plus lent, sans planter. Une idée ?"],
        "piece": {"console": ["Sortie :"], "console_node": ["sortie sur {host} :"], "rankfile": ["voici le rank {r} :"],
                  "summary": ["à la fin :"], "kernel": ["dmesg sur {host} affiche :"], "smi": ["nvidia-smi sur {host} après le plantage :"],
                  "analysis": ["dump :"], "k8s": ["kubectl :"], "tails": ["fin de chaque log :"], "misc": ["aussi :"]},
        "same": ["(même erreur sur tous les nœuds)"], "theory": ["Bug NCCL ?", "Merci d'avance."],
        "attached": ["Logs complets en pièce jointe."], "env": ["Environnement :"], "snip": ["...", "[coupé]"],
        "last_attempt": ["J'ai réduit le batch size et relancé :"], "first_is_real": ["(le second run, c'est moi qui l'ai tué ; le vrai problème est le premier)"],
    },
}

JOURNAL_MONTHS = {
    "de": ["Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"],
    "fr": ["janv.", "févr.", "mars", "avril", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."],
    "es": ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"],
    "ru": ["янв", "фев", "мар", "апр", "мая", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"],
}


def dur_text(sec, lang):
    h = sec / 3600.0
    if lang == "en":
        if h < 1:
            return f"~{int(sec // 60) + 1} minutes"
        if h < 30:
            return f"about {h:.0f} hours" if h >= 1.5 else "about an hour"
        return f"{h / 24:.0f} days"
    if lang == "zh":
        return f"{h:.0f} 小时" if h >= 1 else f"{int(sec // 60) + 1} 分钟"
    if lang == "ja":
        return f"{h:.0f}時間" if h >= 1 else f"{int(sec // 60) + 1}分"
    if lang == "ko":
        return f"{h:.0f}시간" if h >= 1 else f"{int(sec // 60) + 1}분"
    if lang == "ru":
        return f"{h:.0f} ч" if h >= 1 else f"{int(sec // 60) + 1} мин"
    if lang == "de":
        return f"ca. {h:.0f} Stunden" if h >= 1 else f"{int(sec // 60) + 1} Minuten"
    if lang == "es":
        return f"unas {h:.0f} horas" if h >= 1 else f"{int(sec // 60) + 1} minutos"
    if lang == "pt":
        return f"umas {h:.0f} horas" if h >= 1 else f"{int(sec // 60) + 1} minutos"
    if lang == "fr":
        return f"environ {h:.0f} heures" if h >= 1 else f"{int(sec // 60) + 1} minutes"
    return f"{h:.1f}h"
