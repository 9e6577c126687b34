/** The CLI's own words in English and Chinese (`--lang zh`); API labels follow the same language. */
const MESSAGES = {
  en: {
    downloading: 'downloading',
    indexing: 'indexing',
    training: 'training',
    batch: 'batch',
    created: 'created',
    failedDownloads: 'failed downloads',
    noFailures: 'no failed downloads',
    wrote: 'wrote',
    done: 'done',
    waiting: 'waiting',
  },
  zh: {
    downloading: '下载中',
    indexing: '索引中',
    training: '训练中',
    batch: '批量任务',
    created: '已创建',
    failedDownloads: '下载失败',
    noFailures: '没有下载失败的图片',
    wrote: '已写入',
    done: '完成',
    waiting: '等待中',
  },
} as const;

export type Lang = keyof typeof MESSAGES;
export type MessageKey = keyof (typeof MESSAGES)['en'];
export const t = (lang: Lang, key: MessageKey): string => MESSAGES[lang][key];
