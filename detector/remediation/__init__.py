"""Remediation: from an incident to draining the node, resubmitting the job, resuming from the
last complete checkpoint, and verifying that training resumed — dry-run unless asked to act.

Public entry points:

- :func:`detector.remediation.config.load_remediation_config` / ``parse_remediation``
- :func:`detector.remediation.build.build_remediator` → :class:`Remediator`
- :meth:`Remediator.handle` (incident → :class:`Decision`), :meth:`Remediator.verify`
- :class:`detector.remediation.worker.RemediationWorker` (the sidecar's non-blocking hand-off)
- :class:`detector.remediation.hooks.base.RemediationHook` (the plugin contract; entry-point group
  ``rankdoctor.hooks``)
- :func:`detector.cli.remediate.main` (``rankdoctor remediate …``)
"""
