declare const serverNodeFlags: string[];
export = serverNodeFlags;
